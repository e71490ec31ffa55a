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
 * The agent of the timed takeover tests: a text delta every 100 ms ({@code tick1}, {@code tick2},
 * …) until a gate file exists, then {@code end}. A server killed at any moment leaves a journal
 * that keeps growing, so "the next chunk" after the kill needs nothing from the test (no exec that
 * would add its own latency), and the exact log is known from the number of ticks: a duplicate or a
 * gap anywhere makes it differ.
 */
final class TickingAgent {

    private TickingAgent() {}

    static String agent(String gate) {
        return "i=0; while [ ! -f "
                + gate
                + " ] && [ $i -lt 1200 ]; do i=$((i+1)); echo \"{\\\"delta\\\":\\\"tick$i\\\"}\";"
                + " sleep 0.1; done; echo '{\"delta\":\"end\"}'";
    }

    /**
     * Fingerprints of the whole log of a run of {@link #agent} in thread t-runs with {@code ticks}
     * ticks.
     */
    static List<String> expected(String runId, int ticks) {
        HarnessTranslator t = Harness.COMMAND.translator(runId, "t-runs", () -> 0L);
        List<JsonObject> chunks = new ArrayList<>();
        chunks.addAll(t.onStart());
        chunks.add(
                new ChunkFactory(runId, "t-runs", () -> 0L)
                        .custom("run.accepted", JsonValue.EMPTY_JSON_OBJECT));
        for (int i = 1; i <= ticks; i++) {
            chunks.addAll(t.onLine("{\"delta\":\"tick" + i + "\"}"));
        }
        chunks.addAll(t.onLine("{\"delta\":\"end\"}"));
        chunks.addAll(t.onExit(0, ""));
        return chunks.stream().map(Chunks::fingerprint).toList();
    }

    /** How many tick deltas {@code chunks} (chunks as JSON text) hold. */
    static int ticks(List<String> chunks) {
        return (int)
                chunks.stream().filter(c -> c.matches("(?s).*\"delta\":\"tick[0-9]+\".*")).count();
    }

    /** The ticks in the run's stored log, as {@code /runs/{id}/log} returns it. */
    static int storedTicks(Api api, String runId) {
        JsonArray log = Api.json(api.get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray();
        return ticks(
                log.stream().map(v -> v.asJsonObject().getJsonObject("chunk").toString()).toList());
    }
}
