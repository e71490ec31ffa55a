package dev.agentbox.run;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.store.StoredChunk;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a successor's tool bridge reports again that its predecessor already stored. A call still
 * unanswered at a takeover is dispatched once more (the gate is idempotent on the call's key), so
 * its {@code TOOL_CALL_START/ARGS/END} come again, and so does its {@code approval.decided} when
 * the predecessor decided but died before it wrote the answer. Those chunks are functions of the
 * call's key and the stored decision, so they equal the stored ones chunk for chunk: each stored
 * service chunk cancels one equal repeat, and the log holds every bridged chunk once (an AG-UI
 * client would otherwise see a tool call start twice).
 *
 * <p>Only for the bridge's chunks: {@code file.changed} and {@code egress.denied} may repeat
 * legitimately (the same file changed twice). Not thread-safe: the driver's thread only.
 */
final class BridgedRepeats {

    private final Map<String, Integer> stored = new HashMap<>();

    /** For a successor: the service chunks of the stored log it took over. */
    BridgedRepeats(List<StoredChunk> log) {
        for (StoredChunk c : log) {
            if (c.service()) {
                stored.merge(c.fingerprint(), 1, Integer::sum);
            }
        }
    }

    /** {@code chunks} without those the stored log already holds (each stored one used once). */
    List<JsonObject> notStored(List<JsonObject> chunks) {
        if (stored.isEmpty()) {
            return chunks;
        }
        List<JsonObject> out = new ArrayList<>(chunks.size());
        for (JsonObject c : chunks) {
            String fp = Chunks.fingerprint(c);
            Integer n = stored.get(fp);
            if (n == null) {
                out.add(c);
            } else if (n == 1) {
                stored.remove(fp);
            } else {
                stored.put(fp, n - 1);
            }
        }
        return out;
    }
}
