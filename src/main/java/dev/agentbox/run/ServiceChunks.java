package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The {@code CUSTOM} chunks the service writes into a run's log on its own account rather than
 * translating them from the journal: {@code run.accepted}, {@code file.changed} for a run with file
 * events ({@link RunFileEvents}), {@code egress.denied} for a run in an egress sandbox ({@link
 * RunEgressDenials}), and the tool gate's {@code approval.decided} and {@code interrupt.requested}
 * ({@code dev.agentbox.tool.GateEvents}). A takeover's replay cannot reproduce them, so they are
 * the only stored chunks {@link Alignment} may skip.
 *
 * <p>Not the translators' {@code CUSTOM} chunks ({@code agent.text}, {@code agent.output}, {@code
 * claude-code.*}, {@code codex.*}): those come from journal lines, a replay reproduces them, and a
 * stored one that differs is a rewritten line.
 *
 * <p>How alignment knows one: their names are reserved ({@link Chunks#SERVICE_NAMES}) — no
 * translator emits them from a journal line, the {@code command} harness turns an agent's line
 * naming one into {@code agent.output} — and the event log marks a chunk with a reserved name when
 * it is appended ({@code StoredChunk.service}), so alignment never reads chunk JSON back. A {@code
 * file.changed} chunk carries data (a path and a kind), so only the mark can recognise it. {@code
 * run.accepted} is a function of the run alone, so one stored before the mark existed is still
 * recognised by its fingerprint.
 */
final class ServiceChunks {

    /** The first driver's mark that it took the run on (a successor does not repeat it). */
    static final String RUN_ACCEPTED = "run.accepted";

    /** Destinations the run's egress sandbox was refused ({@link RunEgressDenials}). */
    static final String EGRESS_DENIED = "egress.denied";

    /**
     * A brokered secret's placeholder reached the run's egress gateway while it held no value for
     * it ({@link RunEgressDenials}): {@code {"name","host"}}.
     */
    static final String EGRESS_SECRET_MISSING = "egress.secret-missing";

    /** A change in the run's workspace, for a run with {@code fileEvents}. */
    static final String FILE_CHANGED = "file.changed";

    private ServiceChunks() {}

    static JsonObject runAccepted(ChunkFactory chunks) {
        return chunks.custom(RUN_ACCEPTED, JsonValue.EMPTY_JSON_OBJECT);
    }

    /**
     * {@code file.changed} of {@code path} ({@code /workspace/…}): {@code create|change|delete}.
     */
    static JsonObject fileChanged(ChunkFactory chunks, String path, String kind) {
        return chunks.custom(
                FILE_CHANGED,
                jakarta.json.Json.createObjectBuilder()
                        .add("path", path)
                        .add("kind", kind)
                        .build());
    }

    /**
     * The {@code file.changed} that stands for {@code dropped} changes not reported one by one (the
     * bounds of {@link RunFileEvents}): somewhere under {@code /workspace}.
     */
    static JsonObject fileChangesDropped(ChunkFactory chunks, long dropped) {
        return chunks.custom(
                FILE_CHANGED,
                jakarta.json.Json.createObjectBuilder()
                        .add("path", "/workspace")
                        .add("kind", "change")
                        .add("dropped", dropped)
                        .build());
    }

    /**
     * The chunks of a call of the run's own tools through the tool bridge as it starts: {@code
     * TOOL_CALL_START}, {@code TOOL_CALL_ARGS} (the arguments as JSON text), {@code TOOL_CALL_END}.
     * Their {@code toolCallId} is {@link #bridgeToolCallId} of the call's key, the same on every
     * server, and reserved ({@link Chunks#BRIDGE_TOOL_CALL_PREFIX}), which is how the event log
     * marks them as the service's.
     */
    static List<JsonObject> bridgeCallStarted(
            ChunkFactory chunks, String callKey, String tool, String argumentsJson) {
        String id = bridgeToolCallId(callKey);
        return List.of(
                chunks.toolCallStart(id, tool),
                chunks.toolCallArgs(id, argumentsJson),
                chunks.toolCallEnd(id));
    }

    /** The {@code TOOL_CALL_RESULT} of a bridged call: what the agent was handed. */
    static JsonObject bridgeCallResult(ChunkFactory chunks, String callKey, String text) {
        String id = bridgeToolCallId(callKey);
        return chunks.toolCallResult(id + "-result", id, text);
    }

    /** {@code agentbox-tool-} and 16 hex digits of the SHA-256 of the call's key. */
    static String bridgeToolCallId(String callKey) {
        return dev.agentbox.tool.ToolCallIds.of(callKey);
    }

    /**
     * Fingerprints of the chunks the service may insert into the log of run {@code runId} that are
     * a function of the run alone ({@code run.accepted}).
     */
    static Set<String> fingerprints(String runId, String threadId) {
        ChunkFactory chunks = new ChunkFactory(runId, threadId, () -> 0L);
        return Stream.of(runAccepted(chunks))
                .map(Chunks::fingerprint)
                .collect(Collectors.toUnmodifiableSet());
    }
}
