package dev.agentbox.run.harness;

import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The well-formedness of one run's chunk sequence, as AG-UI 1.0's event verifier checks it, plus
 * the schema of each chunk ({@link AgUiSchema}).
 *
 * <p>Sequence rules: the first chunk is {@code RUN_STARTED} (or {@code RUN_ERROR}); nothing follows
 * a terminal chunk; a {@code *_START} of an id (text message, tool call, reasoning span, reasoning
 * message) or a {@code STEP_STARTED} of a name already open is refused, and the chunks that
 * continue or end one need it open; {@code RUN_FINISHED} is refused while anything is open ({@code
 * RUN_ERROR} is not). A run's log holds one run, so a second {@code RUN_STARTED} is refused too.
 *
 * <p>Open things are kept in insertion order, so {@link #closing} is deterministic: a replay of the
 * same chunks closes the same things in the same order. Not thread-safe: one per translation.
 */
public final class AgUiSequence {

    private boolean started;
    private boolean terminated;
    private final Set<String> texts = new LinkedHashSet<>();
    private final Set<String> toolCalls = new LinkedHashSet<>();
    private final Set<String> reasoningSpans = new LinkedHashSet<>();
    private final Set<String> reasoningMessages = new LinkedHashSet<>();
    private final Set<String> steps = new LinkedHashSet<>();

    /** Every message, tool call and reasoning id seen so far, open or not. */
    private final Set<String> seenIds = new HashSet<>();

    /** Why {@code chunk} cannot come next (schema or sequence); empty when it can. */
    public Optional<String> refusal(JsonObject chunk) {
        List<String> schema = AgUiSchema.problems(chunk);
        if (!schema.isEmpty()) {
            return Optional.of(String.join("; ", schema));
        }
        ChunkType type = Chunks.typeOf(chunk).orElseThrow();
        if (terminated) {
            return Optional.of(type + " after the terminal chunk");
        }
        if (!started && type != ChunkType.RUN_STARTED && type != ChunkType.RUN_ERROR) {
            return Optional.of("first chunk is " + type + ", not RUN_STARTED");
        }
        return switch (type) {
            case RUN_STARTED -> started ? Optional.of("a second RUN_STARTED") : Optional.empty();
            case TEXT_MESSAGE_START -> opens(texts, chunk, "messageId", "text message");
            case TEXT_MESSAGE_CONTENT, TEXT_MESSAGE_END ->
                    continues(texts, chunk, "messageId", "text message");
            case TOOL_CALL_START -> opens(toolCalls, chunk, "toolCallId", "tool call");
            case TOOL_CALL_ARGS, TOOL_CALL_END ->
                    continues(toolCalls, chunk, "toolCallId", "tool call");
            case REASONING_START -> opens(reasoningSpans, chunk, "messageId", "reasoning span");
            case REASONING_END -> continues(reasoningSpans, chunk, "messageId", "reasoning span");
            case REASONING_MESSAGE_START ->
                    opens(reasoningMessages, chunk, "messageId", "reasoning message");
            case REASONING_MESSAGE_CONTENT, REASONING_MESSAGE_END ->
                    continues(reasoningMessages, chunk, "messageId", "reasoning message");
            case STEP_STARTED -> opens(steps, chunk, "stepName", "step");
            case STEP_FINISHED -> continues(steps, chunk, "stepName", "step");
            case RUN_FINISHED ->
                    anythingOpen() ? Optional.of("RUN_FINISHED with " + open()) : Optional.empty();
            case TOOL_CALL_RESULT, CUSTOM, RUN_ERROR -> Optional.empty();
        };
    }

    /**
     * Records {@code chunk} as the next in the sequence.
     *
     * @throws IllegalArgumentException when {@link #refusal} names a reason
     */
    public void accept(JsonObject chunk) {
        Optional<String> refusal = refusal(chunk);
        if (refusal.isPresent()) {
            throw new IllegalArgumentException(
                    "chunk breaks the AG-UI sequence (" + refusal.get() + "): " + chunk);
        }
        ChunkType type = Chunks.typeOf(chunk).orElseThrow();
        Chunks.string(chunk, "messageId").ifPresent(seenIds::add);
        Chunks.string(chunk, "toolCallId").ifPresent(seenIds::add);
        switch (type) {
            case RUN_STARTED -> started = true;
            case TEXT_MESSAGE_START -> texts.add(chunk.getString("messageId"));
            case TEXT_MESSAGE_END -> texts.remove(chunk.getString("messageId"));
            case TOOL_CALL_START -> toolCalls.add(chunk.getString("toolCallId"));
            case TOOL_CALL_END -> toolCalls.remove(chunk.getString("toolCallId"));
            case REASONING_START -> reasoningSpans.add(chunk.getString("messageId"));
            case REASONING_END -> reasoningSpans.remove(chunk.getString("messageId"));
            case REASONING_MESSAGE_START -> reasoningMessages.add(chunk.getString("messageId"));
            case REASONING_MESSAGE_END -> reasoningMessages.remove(chunk.getString("messageId"));
            case STEP_STARTED -> steps.add(chunk.getString("stepName"));
            case STEP_FINISHED -> steps.remove(chunk.getString("stepName"));
            case RUN_FINISHED, RUN_ERROR -> {
                started = true;
                terminated = true;
            }
            default -> {
                // Content, args, results and CUSTOM change nothing that is open.
            }
        }
    }

    /**
     * The chunks that close everything still open, in a fixed order: reasoning messages, reasoning
     * spans, text messages, tool calls, steps (each in the order they were opened). Accepting them
     * in that order leaves nothing open.
     */
    public List<JsonObject> closing(ChunkFactory chunks) {
        List<JsonObject> out = new ArrayList<>();
        reasoningMessages.forEach(id -> out.add(chunks.reasoningMessageEnd(id)));
        reasoningSpans.forEach(id -> out.add(chunks.reasoningEnd(id)));
        texts.forEach(id -> out.add(chunks.textMessageEnd(id)));
        toolCalls.forEach(id -> out.add(chunks.toolCallEnd(id)));
        steps.forEach(name -> out.add(chunks.stepFinished(name)));
        return out;
    }

    /** Whether {@code id} has been used as a message, tool call or reasoning id. */
    public boolean seen(String id) {
        return seenIds.contains(id);
    }

    /** Whether a terminal chunk has been accepted. */
    public boolean terminated() {
        return terminated;
    }

    private boolean anythingOpen() {
        return !(texts.isEmpty()
                && toolCalls.isEmpty()
                && reasoningSpans.isEmpty()
                && reasoningMessages.isEmpty()
                && steps.isEmpty());
    }

    private String open() {
        return "open: text "
                + texts
                + ", tool calls "
                + toolCalls
                + ", reasoning spans "
                + reasoningSpans
                + ", reasoning messages "
                + reasoningMessages
                + ", steps "
                + steps;
    }

    private static Optional<String> opens(Set<String> open, JsonObject c, String key, String what) {
        String id = c.getString(key);
        return open.contains(id)
                ? Optional.of(what + " " + id + " is already open")
                : Optional.empty();
    }

    private static Optional<String> continues(
            Set<String> open, JsonObject c, String key, String what) {
        String id = c.getString(key);
        return open.contains(id) ? Optional.empty() : Optional.of(what + " " + id + " is not open");
    }
}
