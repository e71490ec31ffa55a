package dev.agentbox.it;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessTranslator;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent of the cross-server tests: six text deltas with a gate (a file the test creates) after
 * the third, so a test can kill or pause its server mid-run; and the exact log it must leave, as
 * fingerprints. Deltas, not plain lines, so the transcript is all TEXT chunks.
 */
final class GatedAgent {

    /**
     * Stored chunks once the first three lines are in: started, accepted, message start, three
     * contents.
     */
    static final int AFTER_THREE = 6;

    private GatedAgent() {}

    static String agent(String gate) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= 6; i++) {
            if (i == 4) {
                sb.append("while [ ! -f ").append(gate).append(" ]; do sleep 0.1; done; ");
            }
            sb.append("echo '").append(line(i)).append("'; ");
        }
        return sb.append("true").toString();
    }

    static String line(int i) {
        return "{\"delta\":\"line" + i + "\"}";
    }

    static String gate(String runId) {
        return "/tmp/gate-" + runId;
    }

    /**
     * Fingerprints of the whole log of a run of {@link #agent} in thread {@code t-runs} that exited
     * 0.
     */
    static List<String> expected(String runId) {
        HarnessTranslator t = Harness.COMMAND.translator(runId, "t-runs", () -> 0L);
        List<JsonObject> chunks = new ArrayList<>();
        chunks.addAll(t.onStart());
        chunks.add(
                new ChunkFactory(runId, "t-runs", () -> 0L)
                        .custom("run.accepted", JsonValue.EMPTY_JSON_OBJECT));
        for (int i = 1; i <= 6; i++) {
            chunks.addAll(t.onLine(line(i)));
        }
        chunks.addAll(t.onExit(0, ""));
        return chunks.stream().map(Chunks::fingerprint).toList();
    }

    /** Fingerprints of the run's stored log, as {@code /runs/{id}/log} returns it. */
    static List<String> storedFingerprints(Api api, String runId) {
        JsonArray log = Api.json(api.get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray();
        return log.stream()
                .map(v -> Chunks.fingerprint(v.asJsonObject().getJsonObject("chunk")))
                .toList();
    }
}
