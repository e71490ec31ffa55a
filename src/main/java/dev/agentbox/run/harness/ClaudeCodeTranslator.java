package dev.agentbox.run.harness;

import dev.agentbox.platform.CanonicalJson;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The {@code claude-code} harness: translates the NDJSON of {@code claude -p --output-format
 * stream-json --verbose} (the prompt on stdin).
 *
 * <ul>
 *   <li>{@code {"type":"system","subtype":"init","session_id":…}} → {@code CUSTOM
 *       claude-code.session-id} with the session id as value; other system messages are ignored.
 *   <li>{@code {"type":"assistant","message":{"content":[…]}}}: each {@code text} block → a whole
 *       text message (START/CONTENT/END, role assistant, fresh run-scoped id); each {@code
 *       tool_use} block → TOOL_CALL_START (name) / TOOL_CALL_ARGS (canonical JSON of {@code input})
 *       / TOOL_CALL_END under a fresh run-scoped id remembered for the block's {@code id}; a
 *       non-empty {@code thinking} block → a whole reasoning span: REASONING_START,
 *       REASONING_MESSAGE_ START (role reasoning) / CONTENT / END, REASONING_END, with fresh
 *       run-scoped ids.
 *   <li>{@code {"type":"user","message":{"content":[…]}}}: each {@code tool_result} block →
 *       TOOL_CALL_RESULT for the run-scoped id of the matching tool_use (a fresh id for the result
 *       message; content: a string as is, text blocks joined by newlines, anything else as
 *       canonical JSON). A result whose tool_use was never seen → {@code CUSTOM
 *       claude-code.tool-result} with the raw block.
 *   <li>{@code {"type":"result",…}}: its {@code usage} becomes {@link #usage()}; then {@code
 *       RUN_ERROR} (code {@code agent-error}) when {@code is_error} is true or the subtype starts
 *       with {@code error}, else {@code RUN_FINISHED} with the result text.
 *   <li>A line that is not a JSON object → {@code CUSTOM agent.text}; unknown message types (e.g.
 *       stream events) are ignored.
 * </ul>
 *
 * Ids never come from Claude's own ids (they are not run-scoped); the map from tool_use ids to
 * run-scoped ids is rebuilt on replay from the same lines, so it is deterministic too.
 */
final class ClaudeCodeTranslator extends TranslatorBase {

    /** Looked up once: {@code Json.createX} looks the provider up on every call, which is slow. */
    private static final JsonProvider JSON = JsonProvider.provider();

    public static final String SESSION_ID = "claude-code.session-id";
    public static final String UNMATCHED_TOOL_RESULT = "claude-code.tool-result";

    private final Map<String, String> toolCallIds = new HashMap<>();
    private Optional<JsonObject> usage = Optional.empty();

    public ClaudeCodeTranslator(String runId, String threadId, LongSupplier timestamps) {
        super(runId, threadId, timestamps);
    }

    @Override
    public Optional<JsonObject> usage() {
        return usage;
    }

    @Override
    protected void translate(String line, Out out) {
        Optional<JsonObject> parsed = parseObject(line);
        if (parsed.isEmpty()) {
            out.emit(chunks.custom(CommandTranslator.AGENT_TEXT, line));
            return;
        }
        JsonObject event = parsed.get();
        switch (Chunks.string(event, "type").orElse("")) {
            case "system" -> system(event, out);
            case "assistant" -> assistant(event, out);
            case "user" -> user(event, out);
            case "result" -> result(event, out);
            default -> {
                // stream_event and future message types carry nothing the log needs.
            }
        }
    }

    private void system(JsonObject event, Out out) {
        if (Chunks.string(event, "subtype").filter("init"::equals).isPresent()) {
            Chunks.string(event, "session_id")
                    .ifPresent(id -> out.emit(chunks.custom(SESSION_ID, id)));
        }
    }

    private void assistant(JsonObject event, Out out) {
        for (JsonObject block : contentBlocks(event)) {
            switch (Chunks.string(block, "type").orElse("")) {
                case "text" ->
                        out.textMessage("assistant", Chunks.string(block, "text").orElse(""));
                case "tool_use" -> {
                    String id = ids.next();
                    Chunks.string(block, "id").ifPresent(claudeId -> toolCallIds.put(claudeId, id));
                    JsonValue input = block.getOrDefault("input", JsonValue.EMPTY_JSON_OBJECT);
                    out.toolCall(
                            id,
                            Chunks.string(block, "name").orElse("unknown"),
                            CanonicalJson.of(input));
                }
                case "thinking" -> out.reasoning(Chunks.string(block, "thinking").orElse(""));
                default -> {
                    // redacted_thinking and unknown blocks: nothing to show.
                }
            }
        }
    }

    private void user(JsonObject event, Out out) {
        for (JsonObject block : contentBlocks(event)) {
            if (!Chunks.string(block, "type").filter("tool_result"::equals).isPresent()) {
                continue;
            }
            Optional<String> toolCallId = Chunks.string(block, "tool_use_id").map(toolCallIds::get);
            if (toolCallId.isPresent()) {
                out.emit(
                        chunks.toolCallResult(
                                ids.next(), toolCallId.get(), resultText(block.get("content"))));
            } else {
                out.emit(chunks.custom(UNMATCHED_TOOL_RESULT, block));
            }
        }
    }

    private void result(JsonObject event, Out out) {
        JsonValue reported = event.get("usage");
        if (reported != null && reported.getValueType() == JsonValue.ValueType.OBJECT) {
            usage = Optional.of(reported.asJsonObject());
        }
        String subtype = Chunks.string(event, "subtype").orElse("");
        boolean isError = event.getBoolean("is_error", false) || subtype.startsWith("error");
        Optional<String> text = Chunks.string(event, "result");
        if (isError) {
            String message =
                    text.filter(t -> !t.isBlank())
                            .orElseGet(
                                    () ->
                                            errorsOf(event)
                                                    .orElse(
                                                            "Claude Code run ended with "
                                                                    + (subtype.isEmpty()
                                                                            ? "an error"
                                                                            : subtype)));
            out.emit(chunks.runError(message, AGENT_ERROR));
        } else {
            out.emit(
                    text.map(t -> chunks.runFinished(JSON.createValue(t)))
                            .orElseGet(chunks::runFinished));
        }
    }

    private static Optional<String> errorsOf(JsonObject event) {
        JsonValue errors = event.get("errors");
        if (errors == null
                || errors.getValueType() != JsonValue.ValueType.ARRAY
                || errors.asJsonArray().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                errors.asJsonArray().stream()
                        .map(
                                e ->
                                        e.getValueType() == JsonValue.ValueType.STRING
                                                ? ((JsonString) e).getString()
                                                : CanonicalJson.of(e))
                        .collect(Collectors.joining("; ")));
    }

    /** The message's content blocks; a plain string content counts as one text block. */
    private static List<JsonObject> contentBlocks(JsonObject event) {
        JsonValue message = event.get("message");
        if (message == null || message.getValueType() != JsonValue.ValueType.OBJECT) {
            return List.of();
        }
        JsonValue content = message.asJsonObject().get("content");
        if (content == null) {
            return List.of();
        }
        if (content.getValueType() == JsonValue.ValueType.STRING) {
            return List.of(
                    JSON.createObjectBuilder().add("type", "text").add("text", content).build());
        }
        if (content.getValueType() != JsonValue.ValueType.ARRAY) {
            return List.of();
        }
        return ((JsonArray) content)
                .stream()
                        .filter(v -> v.getValueType() == JsonValue.ValueType.OBJECT)
                        .map(JsonValue::asJsonObject)
                        .toList();
    }

    /** A tool result's content as text: a string as is, text blocks joined, else canonical JSON. */
    private static String resultText(JsonValue content) {
        if (content == null || content.getValueType() == JsonValue.ValueType.NULL) {
            return "";
        }
        if (content.getValueType() == JsonValue.ValueType.STRING) {
            return ((JsonString) content).getString();
        }
        if (content.getValueType() == JsonValue.ValueType.ARRAY) {
            JsonArray blocks = content.asJsonArray();
            boolean allText =
                    blocks.stream()
                            .allMatch(
                                    b ->
                                            b.getValueType() == JsonValue.ValueType.OBJECT
                                                    && Chunks.string(b.asJsonObject(), "type")
                                                            .filter("text"::equals)
                                                            .isPresent()
                                                    && Chunks.string(b.asJsonObject(), "text")
                                                            .isPresent());
            if (allText) {
                return blocks.stream()
                        .map(b -> b.asJsonObject().getString("text"))
                        .collect(Collectors.joining("\n"));
            }
        }
        return CanonicalJson.of(content);
    }
}
