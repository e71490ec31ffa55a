package dev.agentbox.run.harness;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The {@code command} harness (docs/api.md, "Chunks"):
 *
 * <ol>
 *   <li>a JSON object whose {@code type} names a chunk type of the vocabulary ({@link ChunkType}
 *       other than the lifecycle types) → that chunk, with the service's {@code threadId}, {@code
 *       runId} and {@code timestamp}, and a missing id filled in:
 *       <ul>
 *         <li>{@code TEXT_MESSAGE_START} without {@code messageId} gets a new run-scoped id, which
 *             becomes the current message; without {@code role}, role {@code assistant};
 *         <li>{@code TEXT_MESSAGE_CONTENT}/{@code END} without {@code messageId} get the current
 *             message's id (a new one if there is none yet);
 *         <li>{@code TOOL_CALL_START} without {@code toolCallId} gets a new id, which becomes the
 *             current tool call; {@code TOOL_CALL_ARGS}/{@code END}/{@code RESULT} without it get
 *             the current tool call's id; a {@code TOOL_CALL_RESULT} without {@code messageId} gets
 *             a new id (the result is a message of its own);
 *         <li>{@code REASONING_START} and {@code REASONING_MESSAGE_START} (role {@code reasoning}
 *             when missing) likewise: a new id that becomes the current reasoning span or message,
 *             which {@code REASONING_END}, {@code REASONING_MESSAGE_CONTENT}/{@code END} without
 *             {@code messageId} get;
 *       </ul>
 *   <li>{@code {"delta":"…"}} (a string {@code delta} as the only member) → {@code
 *       TEXT_MESSAGE_CONTENT}; a {@code TEXT_MESSAGE_START} (new id, role assistant) precedes the
 *       first of a message, and a {@code TEXT_MESSAGE_END} is emitted before any other chunk and
 *       before the end of the run. An empty delta yields nothing;
 *   <li>any other JSON object → {@code CUSTOM {"name":"agent.output","value":<object>}};
 *   <li>a line that is not a JSON object → {@code CUSTOM {"name":"agent.text","value":"<line>"}}.
 * </ol>
 *
 * The agent is not trusted to keep the log well-formed, so a typed line becomes {@code
 * agent.output} instead whenever the chunk it would make breaks AG-UI's schema or sequence rules
 * ({@link AgUiSequence}): a lifecycle type ({@code RUN_STARTED}, {@code RUN_FINISHED}, {@code
 * RUN_ERROR} — the run's lifecycle belongs to the service, and an agent's own {@code RUN_FINISHED}
 * would end every reader's stream while the agent still runs); a missing or mistyped field
 * (including {@code metadata} that is not an object, a {@code null} {@code rawEvent}, any {@code
 * subagentRunId}); a START of an id already open; a CONTENT/ARGS/END of one not open; a {@code
 * STEP_FINISHED} of a step not started. A {@code CUSTOM} line named like a chunk the service writes
 * itself ({@link Chunks#SERVICE_NAMES}: {@code run.accepted}, {@code file.changed}) is {@code
 * agent.output} too, so an agent cannot forge one — a takeover's alignment passes over stored
 * service chunks, and would pass over a forged one as well. Whatever the agent leaves open (text
 * messages, tool calls, reasoning, steps) is closed before the terminal chunk, in a fixed order, so
 * a replay closes it identically.
 */
public final class CommandTranslator extends TranslatorBase {

    /** Looked up once: {@code Json.createX} looks the provider up on every call, which is slow. */
    private static final JsonProvider JSON = JsonProvider.provider();

    public static final String AGENT_OUTPUT = "agent.output";
    public static final String AGENT_TEXT = "agent.text";

    private Optional<String> currentMessage = Optional.empty();
    private Optional<String> currentToolCall = Optional.empty();
    private Optional<String> currentReasoningSpan = Optional.empty();
    private Optional<String> currentReasoningMessage = Optional.empty();

    public CommandTranslator(String runId, String threadId, LongSupplier timestamps) {
        super(runId, threadId, timestamps);
    }

    @Override
    protected void translate(String line, Out out) {
        Optional<JsonObject> parsed = parseObject(line);
        if (parsed.isEmpty()) {
            out.emit(chunks.custom(AGENT_TEXT, line));
            return;
        }
        JsonObject object = parsed.get();
        Optional<ChunkType> type =
                object.containsKey("type") ? Chunks.typeOf(object) : Optional.empty();
        if (type.isPresent()) {
            if (type.get().isLifecycle() || Chunks.isServiceChunk(object)) {
                out.emit(chunks.custom(AGENT_OUTPUT, object));
            } else {
                // A refused line uses none of the ids filled in for it: forget them, so the
                // agent's next lines get the ids they would have had without it.
                long idMark = ids.mark();
                Currents before = currents();
                if (!out.emitAgent(chunks.stamp(fillIds(type.get(), object)), object)) {
                    ids.rewind(idMark);
                    restore(before);
                }
            }
            return;
        } else if (isDelta(object)) {
            String delta = object.getString("delta");
            if (!delta.isEmpty()) {
                out.appendText(delta);
                currentMessage = openText();
            }
            return;
        }
        out.emit(chunks.custom(AGENT_OUTPUT, object));
    }

    private static boolean isDelta(JsonObject object) {
        return object.size() == 1 && Chunks.string(object, "delta").isPresent();
    }

    private JsonObject fillIds(ChunkType type, JsonObject object) {
        JsonObjectBuilder b = JSON.createObjectBuilder(object);
        // Only a missing id is filled in: one of the wrong JSON type is left for the sequence
        // check to refuse.
        switch (type) {
            case TEXT_MESSAGE_START -> {
                fillNew(b, object, "messageId").ifPresent(id -> currentMessage = Optional.of(id));
                if (!object.containsKey("role")) {
                    b.add("role", "assistant");
                }
            }
            case TEXT_MESSAGE_CONTENT, TEXT_MESSAGE_END ->
                    fillCurrent(
                            b, object, "messageId", () -> currentMessage = current(currentMessage));
            case TOOL_CALL_START ->
                    fillNew(b, object, "toolCallId")
                            .ifPresent(id -> currentToolCall = Optional.of(id));
            case TOOL_CALL_ARGS, TOOL_CALL_END ->
                    fillCurrent(
                            b,
                            object,
                            "toolCallId",
                            () -> currentToolCall = current(currentToolCall));
            case TOOL_CALL_RESULT -> {
                fillCurrent(
                        b, object, "toolCallId", () -> currentToolCall = current(currentToolCall));
                fillNew(b, object, "messageId");
            }
            case REASONING_START ->
                    fillNew(b, object, "messageId")
                            .ifPresent(id -> currentReasoningSpan = Optional.of(id));
            case REASONING_END ->
                    fillCurrent(
                            b,
                            object,
                            "messageId",
                            () -> currentReasoningSpan = current(currentReasoningSpan));
            case REASONING_MESSAGE_START -> {
                fillNew(b, object, "messageId")
                        .ifPresent(id -> currentReasoningMessage = Optional.of(id));
                if (!object.containsKey("role")) {
                    b.add("role", "reasoning");
                }
            }
            case REASONING_MESSAGE_CONTENT, REASONING_MESSAGE_END ->
                    fillCurrent(
                            b,
                            object,
                            "messageId",
                            () -> currentReasoningMessage = current(currentReasoningMessage));
            default -> {
                // CUSTOM and the steps carry no ids to fill in.
            }
        }
        return b.build();
    }

    /** The ids missing ids are filled in with. */
    private record Currents(
            Optional<String> message,
            Optional<String> toolCall,
            Optional<String> reasoningSpan,
            Optional<String> reasoningMessage) {}

    private Currents currents() {
        return new Currents(
                currentMessage, currentToolCall, currentReasoningSpan, currentReasoningMessage);
    }

    private void restore(Currents c) {
        currentMessage = c.message();
        currentToolCall = c.toolCall();
        currentReasoningSpan = c.reasoningSpan();
        currentReasoningMessage = c.reasoningMessage();
    }

    /** Fills {@code field} with a new id when missing; the id the chunk will carry, if a string. */
    private Optional<String> fillNew(JsonObjectBuilder b, JsonObject object, String field) {
        if (!object.containsKey(field)) {
            String id = ids.next();
            b.add(field, id);
            return Optional.of(id);
        }
        return Chunks.string(object, field);
    }

    /** Fills {@code field} with the current id (see {@link #current}) when missing. */
    private static void fillCurrent(
            JsonObjectBuilder b,
            JsonObject object,
            String field,
            Supplier<Optional<String>> current) {
        if (!object.containsKey(field)) {
            b.add(field, current.get().orElseThrow());
        }
    }

    /** {@code current}, or a new id when there is none yet. */
    private Optional<String> current(Optional<String> current) {
        return current.isPresent() ? current : Optional.of(ids.next());
    }
}
