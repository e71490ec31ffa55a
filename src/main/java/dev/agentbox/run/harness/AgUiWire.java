package dev.agentbox.run.harness;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/**
 * A chunk as AG-UI 1.0 defines its event: only the members the event's schema names. The stored
 * chunk carries agentbox's envelope too ({@code threadId} and {@code runId} on every chunk, and
 * whatever else a {@code command} agent put on its own chunks); AG-UI clients remove members their
 * schema does not name, warning about each one ("Removed unrecognised material"), so the AG-UI
 * endpoints send the event without them. {@code threadId} and {@code runId} stay where AG-UI puts
 * them: on {@code RUN_STARTED} and {@code RUN_FINISHED}.
 *
 * <p>Invariant: the wire form of a valid chunk is still valid (only optional or unnamed members are
 * removed) and is a pure function of the stored chunk, so a resumed or replayed stream sends the
 * same events.
 */
public final class AgUiWire {

    private static final JsonProvider JSON = JsonProvider.provider();

    /** Members every AG-UI event may carry. */
    private static final Set<String> BASE = Set.of("type", "timestamp", "rawEvent", "metadata");

    private static final Map<ChunkType, Set<String>> MEMBERS = new EnumMap<>(ChunkType.class);

    static {
        MEMBERS.put(
                ChunkType.RUN_STARTED,
                Set.of("threadId", "runId", "protocolVersion", "parentRunId", "input"));
        MEMBERS.put(ChunkType.TEXT_MESSAGE_START, Set.of("messageId", "role", "name"));
        MEMBERS.put(ChunkType.TEXT_MESSAGE_CONTENT, Set.of("messageId", "delta"));
        MEMBERS.put(ChunkType.TEXT_MESSAGE_END, Set.of("messageId"));
        MEMBERS.put(
                ChunkType.TOOL_CALL_START, Set.of("toolCallId", "toolCallName", "parentMessageId"));
        MEMBERS.put(ChunkType.TOOL_CALL_ARGS, Set.of("toolCallId", "delta"));
        MEMBERS.put(ChunkType.TOOL_CALL_END, Set.of("toolCallId"));
        MEMBERS.put(
                ChunkType.TOOL_CALL_RESULT, Set.of("messageId", "toolCallId", "content", "role"));
        MEMBERS.put(ChunkType.CUSTOM, Set.of("name", "value"));
        MEMBERS.put(ChunkType.STEP_STARTED, Set.of("stepName"));
        MEMBERS.put(ChunkType.STEP_FINISHED, Set.of("stepName"));
        MEMBERS.put(ChunkType.REASONING_START, Set.of("messageId"));
        MEMBERS.put(ChunkType.REASONING_MESSAGE_START, Set.of("messageId", "role"));
        MEMBERS.put(ChunkType.REASONING_MESSAGE_CONTENT, Set.of("messageId", "delta"));
        MEMBERS.put(ChunkType.REASONING_MESSAGE_END, Set.of("messageId"));
        MEMBERS.put(ChunkType.REASONING_END, Set.of("messageId"));
        MEMBERS.put(
                ChunkType.RUN_FINISHED, Set.of("threadId", "runId", "result", "outcome", "usage"));
        MEMBERS.put(ChunkType.RUN_ERROR, Set.of("message", "code", "usage"));
    }

    private AgUiWire() {}

    /** {@code chunk} with only the members AG-UI names for its type. */
    public static JsonObject of(JsonObject chunk) {
        Set<String> own = Chunks.typeOf(chunk).map(MEMBERS::get).orElse(Set.of());
        JsonObjectBuilder b = JSON.createObjectBuilder();
        for (Map.Entry<String, JsonValue> e : chunk.entrySet()) {
            if (BASE.contains(e.getKey()) || own.contains(e.getKey())) {
                b.add(e.getKey(), e.getValue());
            }
        }
        return b.build();
    }
}
