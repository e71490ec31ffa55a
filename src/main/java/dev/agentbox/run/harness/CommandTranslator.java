package dev.agentbox.run.harness;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The {@code command} harness (docs/api.md, "Chunks"):
 *
 * <ol>
 *   <li>a JSON object whose {@code type} names a chunk type → that chunk, with the service's {@code
 *       threadId}, {@code runId} and {@code timestamp}, and a missing id filled in:
 *       <ul>
 *         <li>{@code TEXT_MESSAGE_START} without {@code messageId} gets a new run-scoped id, which
 *             becomes the current message; without {@code role}, role {@code assistant};
 *         <li>{@code TEXT_MESSAGE_CONTENT}/{@code END} without {@code messageId} get the current
 *             message's id (a new one if there is none yet);
 *         <li>{@code TOOL_CALL_START} without {@code toolCallId} gets a new id, which becomes the
 *             current tool call; {@code TOOL_CALL_ARGS}/{@code END}/{@code RESULT} without it get
 *             the current tool call's id; a {@code TOOL_CALL_RESULT} without {@code messageId} gets
 *             a new id (the result is a message of its own);
 *       </ul>
 *   <li>{@code {"delta":"…"}} (a string {@code delta} as the only member) → {@code
 *       TEXT_MESSAGE_CONTENT}; a {@code TEXT_MESSAGE_START} (new id, role assistant) precedes the
 *       first of a message, and a {@code TEXT_MESSAGE_END} is emitted before any other chunk and
 *       before the end of the run. An empty delta yields nothing (AG-UI requires a non-empty
 *       delta);
 *   <li>any other JSON object → {@code CUSTOM {"name":"agent.output","value":<object>}};
 *   <li>a line that is not a JSON object → {@code CUSTOM {"name":"agent.text","value":"<line>"}}.
 * </ol>
 *
 * Two choices (also in docs/api.md), both so that the log stays well-formed: an agent line whose
 * type is a lifecycle type ({@code RUN_STARTED}, {@code RUN_FINISHED}, {@code RUN_ERROR}) is {@code
 * agent.output} — the run's lifecycle belongs to the service, and an agent's own {@code
 * RUN_FINISHED} would end every reader's stream while the agent still runs; and a typed line that
 * still lacks a field its type requires (e.g. a {@code TOOL_CALL_START} without {@code
 * toolCallName}, a {@code CUSTOM} without {@code value}) is {@code agent.output} rather than an
 * invalid chunk. A third: a {@code CUSTOM} line named like a chunk the service writes itself
 * ({@link Chunks#SERVICE_NAMES}: {@code run.accepted}, {@code file.changed}) is {@code
 * agent.output} too, so an agent cannot forge one — a takeover's alignment passes over stored
 * service chunks, and would pass over a forged one as well. A text message the agent started
 * explicitly is left to the agent to end (inserting an END would cut it wherever another chunk type
 * appears), but one still open at the exit is ended before the terminal chunk, so every START has
 * its END in the log.
 */
public final class CommandTranslator extends TranslatorBase {

    /** Looked up once: {@code Json.createX} looks the provider up on every call, which is slow. */
    private static final JsonProvider JSON = JsonProvider.provider();

    public static final String AGENT_OUTPUT = "agent.output";
    public static final String AGENT_TEXT = "agent.text";

    private static final Set<String> FILLABLE_WHEN_MISSING =
            Set.of("messageId: missing", "toolCallId: missing", "role: missing");

    /** Text messages the agent started explicitly and has not ended, in start order. */
    private final LinkedHashSet<String> unclosedMessages = new LinkedHashSet<>();

    private Optional<String> currentMessage = Optional.empty();
    private Optional<String> currentToolCall = Optional.empty();

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
        if (type.isPresent() && !type.get().isLifecycle()) {
            if (unfillableProblems(type.get(), object) || Chunks.isServiceChunk(object)) {
                out.emit(chunks.custom(AGENT_OUTPUT, object));
            } else {
                JsonObject chunk = chunks.stamp(fillIds(type.get(), object));
                trackExplicitMessage(type.get(), chunk);
                out.emit(chunk);
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

    @Override
    protected void beforeExit(Out out) {
        for (String messageId : unclosedMessages) {
            out.emit(chunks.textMessageEnd(messageId));
        }
        unclosedMessages.clear();
    }

    private void trackExplicitMessage(ChunkType type, JsonObject chunk) {
        if (type == ChunkType.TEXT_MESSAGE_START) {
            unclosedMessages.add(chunk.getString("messageId"));
        } else if (type == ChunkType.TEXT_MESSAGE_END) {
            unclosedMessages.remove(chunk.getString("messageId"));
        }
    }

    /** Whether the typed line lacks something other than the ids (and role) this class fills in. */
    private static boolean unfillableProblems(ChunkType type, JsonObject object) {
        return Chunks.missingTypeFields(type, object).stream()
                .anyMatch(p -> !FILLABLE_WHEN_MISSING.contains(p));
    }

    private static boolean isDelta(JsonObject object) {
        return object.size() == 1 && Chunks.string(object, "delta").isPresent();
    }

    private JsonObject fillIds(ChunkType type, JsonObject object) {
        JsonObjectBuilder b = JSON.createObjectBuilder(object);
        Optional<String> messageId = Chunks.string(object, "messageId");
        Optional<String> toolCallId = Chunks.string(object, "toolCallId");
        switch (type) {
            case TEXT_MESSAGE_START -> {
                String id = messageId.orElseGet(ids::next);
                currentMessage = Optional.of(id);
                b.add("messageId", id);
                if (!object.containsKey("role")) {
                    b.add("role", "assistant");
                }
            }
            case TEXT_MESSAGE_CONTENT, TEXT_MESSAGE_END -> {
                if (!object.containsKey("messageId")) {
                    b.add("messageId", currentMessage());
                }
            }
            case TOOL_CALL_START -> {
                String id = toolCallId.orElseGet(ids::next);
                currentToolCall = Optional.of(id);
                b.add("toolCallId", id);
            }
            case TOOL_CALL_ARGS, TOOL_CALL_END -> {
                if (!object.containsKey("toolCallId")) {
                    b.add("toolCallId", currentToolCall());
                }
            }
            case TOOL_CALL_RESULT -> {
                if (!object.containsKey("toolCallId")) {
                    b.add("toolCallId", currentToolCall());
                }
                if (!object.containsKey("messageId")) {
                    b.add("messageId", ids.next());
                }
            }
            default -> {
                // CUSTOM carries no ids.
            }
        }
        return b.build();
    }

    private String currentMessage() {
        if (currentMessage.isEmpty()) {
            currentMessage = Optional.of(ids.next());
        }
        return currentMessage.get();
    }

    private String currentToolCall() {
        if (currentToolCall.isEmpty()) {
            currentToolCall = Optional.of(ids.next());
        }
        return currentToolCall.get();
    }
}
