package dev.agentbox.testing;

import dev.agentbox.run.harness.AgUiSequence;
import dev.agentbox.run.harness.AgUiWire;
import dev.agentbox.run.harness.Chunks;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.Optional;

/**
 * Checks a run's chunks against AG-UI 1.0's event schemas and its sequence verifier (what {@code
 * @ag-ui/client}'s {@code verifyEvents} refuses), through the same {@link AgUiSequence} the
 * translators keep.
 */
public final class AgUiAssert {

    private AgUiAssert() {}

    /** A whole run's log: valid, starting with RUN_STARTED, ending with a terminal chunk. */
    public static void assertValidAgUiLog(List<JsonObject> chunks) {
        assertValidAgUiPrefix(chunks);
        if (chunks.isEmpty() || !Chunks.isTerminal(chunks.get(chunks.size() - 1))) {
            throw new AssertionError("log does not end with RUN_FINISHED or RUN_ERROR: " + chunks);
        }
    }

    /** The log so far (a run that may still be going): valid, starting with RUN_STARTED. */
    public static void assertValidAgUiPrefix(List<JsonObject> chunks) {
        if (chunks.isEmpty()) {
            throw new AssertionError("log is empty");
        }
        if (!"RUN_STARTED".equals(chunks.get(0).getString("type", null))) {
            throw new AssertionError("first chunk is not RUN_STARTED: " + chunks.get(0));
        }
        AgUiSequence sequence = new AgUiSequence();
        for (int i = 0; i < chunks.size(); i++) {
            Optional<String> refusal = sequence.refusal(chunks.get(i));
            if (refusal.isPresent()) {
                throw new AssertionError(
                        "chunk "
                                + i
                                + " breaks AG-UI ("
                                + refusal.get()
                                + "): "
                                + chunks.get(i)
                                + "\nlog: "
                                + chunks);
            }
            sequence.accept(chunks.get(i));
        }
    }

    /**
     * A whole run as the AG-UI endpoints send it ({@link AgUiWire}): every event holds only the
     * members AG-UI names for its type, and, with the run's envelope put back, the events are a
     * valid log.
     */
    public static void assertValidAgUiWire(List<JsonObject> events, String threadId, String runId) {
        for (JsonObject e : events) {
            if (!AgUiWire.of(e).equals(e)) {
                throw new AssertionError(
                        "event carries members AG-UI does not name for its type: " + e);
            }
        }
        assertValidAgUiLog(
                events.stream()
                        .map(
                                e ->
                                        Json.createObjectBuilder(e)
                                                .add("threadId", threadId)
                                                .add("runId", runId)
                                                .build())
                        .toList());
    }
}
