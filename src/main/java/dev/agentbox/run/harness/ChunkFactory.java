package dev.agentbox.run.harness;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.util.function.LongSupplier;

/**
 * Builds a run's chunks: every chunk gets the run's {@code threadId} and {@code runId} and a {@code
 * timestamp} (epoch milliseconds) from the injected supplier — the only non-deterministic input,
 * and the one the fingerprint ignores.
 *
 * <p>Member order: {@code type}, the type's own fields, then {@code threadId}, {@code runId},
 * {@code timestamp}. Order carries no meaning (fingerprints use canonical JSON); it is fixed only
 * so that logs read consistently.
 */
public final class ChunkFactory {

    /** Looked up once: {@code Json.createX} looks the provider up on every call, which is slow. */
    private static final JsonProvider JSON = JsonProvider.provider();

    private final String runId;
    private final String threadId;
    private final LongSupplier timestamps;

    public ChunkFactory(String runId, String threadId, LongSupplier timestamps) {
        this.runId = requireText(runId, "runId");
        this.threadId = requireText(threadId, "threadId");
        this.timestamps = timestamps;
    }

    public JsonObject runStarted() {
        return finish(start(ChunkType.RUN_STARTED));
    }

    public JsonObject textMessageStart(String messageId, String role) {
        return finish(
                start(ChunkType.TEXT_MESSAGE_START).add("messageId", messageId).add("role", role));
    }

    public JsonObject textMessageContent(String messageId, String delta) {
        return finish(
                start(ChunkType.TEXT_MESSAGE_CONTENT)
                        .add("messageId", messageId)
                        .add("delta", delta));
    }

    public JsonObject textMessageEnd(String messageId) {
        return finish(start(ChunkType.TEXT_MESSAGE_END).add("messageId", messageId));
    }

    public JsonObject toolCallStart(String toolCallId, String toolCallName) {
        return finish(
                start(ChunkType.TOOL_CALL_START)
                        .add("toolCallId", toolCallId)
                        .add("toolCallName", toolCallName));
    }

    public JsonObject toolCallArgs(String toolCallId, String delta) {
        return finish(
                start(ChunkType.TOOL_CALL_ARGS).add("toolCallId", toolCallId).add("delta", delta));
    }

    public JsonObject toolCallEnd(String toolCallId) {
        return finish(start(ChunkType.TOOL_CALL_END).add("toolCallId", toolCallId));
    }

    /** A tool result; {@code messageId} identifies the (tool-role) message carrying it. */
    public JsonObject toolCallResult(String messageId, String toolCallId, String content) {
        return finish(
                start(ChunkType.TOOL_CALL_RESULT)
                        .add("messageId", messageId)
                        .add("toolCallId", toolCallId)
                        .add("content", content)
                        .add("role", "tool"));
    }

    /** Opens a reasoning span (AG-UI names its id {@code messageId}). */
    public JsonObject reasoningStart(String messageId) {
        return finish(start(ChunkType.REASONING_START).add("messageId", messageId));
    }

    public JsonObject reasoningMessageStart(String messageId) {
        return finish(
                start(ChunkType.REASONING_MESSAGE_START)
                        .add("messageId", messageId)
                        .add("role", "reasoning"));
    }

    public JsonObject reasoningMessageContent(String messageId, String delta) {
        return finish(
                start(ChunkType.REASONING_MESSAGE_CONTENT)
                        .add("messageId", messageId)
                        .add("delta", delta));
    }

    public JsonObject reasoningMessageEnd(String messageId) {
        return finish(start(ChunkType.REASONING_MESSAGE_END).add("messageId", messageId));
    }

    public JsonObject reasoningEnd(String messageId) {
        return finish(start(ChunkType.REASONING_END).add("messageId", messageId));
    }

    public JsonObject stepFinished(String stepName) {
        return finish(start(ChunkType.STEP_FINISHED).add("stepName", stepName));
    }

    public JsonObject custom(String name, JsonValue value) {
        return finish(start(ChunkType.CUSTOM).add("name", name).add("value", value));
    }

    public JsonObject custom(String name, String value) {
        return custom(name, JSON.createValue(value));
    }

    public JsonObject runFinished() {
        return finish(start(ChunkType.RUN_FINISHED));
    }

    /** RUN_FINISHED with AG-UI's optional {@code result}. */
    public JsonObject runFinished(JsonValue result) {
        return finish(start(ChunkType.RUN_FINISHED).add("result", result));
    }

    public JsonObject runError(String message, String code) {
        return finish(start(ChunkType.RUN_ERROR).add("message", message).add("code", code));
    }

    /**
     * An agent-supplied chunk made the run's own: its {@code threadId}, {@code runId} and {@code
     * timestamp} are replaced by the service's (the agent cannot speak for another run), every
     * other member is kept as the agent wrote it.
     */
    public JsonObject stamp(JsonObject agentChunk) {
        JsonObjectBuilder b = JSON.createObjectBuilder(agentChunk);
        b.remove("threadId");
        b.remove("runId");
        b.remove("timestamp");
        return finish(b);
    }

    private JsonObjectBuilder start(ChunkType type) {
        return JSON.createObjectBuilder().add("type", type.name());
    }

    private JsonObject finish(JsonObjectBuilder b) {
        return b.add("threadId", threadId)
                .add("runId", runId)
                .add("timestamp", timestamps.getAsLong())
                .build();
    }

    private static String requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        return value;
    }
}
