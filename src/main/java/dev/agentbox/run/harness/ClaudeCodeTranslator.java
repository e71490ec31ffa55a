package dev.agentbox.run.harness;

import dev.agentbox.platform.CanonicalJson;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The {@code claude-code} harness: translates the NDJSON of {@code claude -p --output-format
 * stream-json --verbose} (the prompt on stdin). {@link #HANDLED} lists what Claude Code 2.1.332
 * prints and this class maps; the tests that run the real CLI hold every line it prints to that
 * list.
 *
 * <ul>
 *   <li>{@code {"type":"system","subtype":"init","session_id":…}} → {@code CUSTOM
 *       claude-code.session-id} with the session id as value.
 *   <li>{@code {"type":"system","subtype":"permission_denied","tool_name","tool_use_id","message"}}
 *       (a tool use the permission mode refused; Claude Code goes on without it) → {@code CUSTOM
 *       claude-code.permission-denied} with {@code {"tool","toolCallId"?,"message"}}, the tool call
 *       id being the run-scoped one of that tool use.
 *   <li>{@code {"type":"system","subtype":"api_retry",…}} (a failed model request about to be
 *       retried) → {@code CUSTOM claude-code.api-retry} with {@code
 *       {"attempt","maxRetries","retryDelayMs","status","error"}} (those present). Other system
 *       messages are ignored.
 *   <li>{@code {"type":"assistant","is_api_error_message":true,…}} (Claude Code's own message about
 *       a model request that failed for good; the {@code result} that follows ends the run) →
 *       {@code CUSTOM claude-code.api-error} with {@code {"status","error","message"}}.
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
    public static final String PERMISSION_DENIED = "claude-code.permission-denied";
    public static final String API_RETRY = "claude-code.api-retry";
    public static final String API_ERROR = "claude-code.api-error";

    /**
     * The lines this translator maps, as {@code type} or {@code type/subtype} for system messages:
     * everything Claude Code 2.1.332 was seen to print in text, tool, refused-tool, retry, error
     * and resumed runs.
     */
    public static final Set<String> HANDLED =
            Set.of(
                    "system/init",
                    "system/permission_denied",
                    "system/api_retry",
                    "assistant",
                    "user",
                    "result");

    /**
     * {@code type}, or {@code type/subtype} for a system message: how {@link #HANDLED} names it.
     */
    public static String eventKind(JsonObject event) {
        String type = Chunks.string(event, "type").orElse("");
        return type.equals("system")
                ? type + "/" + Chunks.string(event, "subtype").orElse("")
                : type;
    }

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
        switch (Chunks.string(event, "subtype").orElse("")) {
            case "init" ->
                    Chunks.string(event, "session_id")
                            .ifPresent(id -> out.emit(chunks.custom(SESSION_ID, id)));
            case "permission_denied" -> {
                JsonObjectBuilder b =
                        JSON.createObjectBuilder()
                                .add("tool", Chunks.string(event, "tool_name").orElse("unknown"));
                Chunks.string(event, "tool_use_id")
                        .map(toolCallIds::get)
                        .ifPresent(id -> b.add("toolCallId", id));
                b.add("message", Chunks.string(event, "message").orElse(""));
                out.emit(chunks.custom(PERMISSION_DENIED, b.build()));
            }
            case "api_retry" -> {
                JsonObjectBuilder b = JSON.createObjectBuilder();
                copy(event, "attempt", b, "attempt");
                copy(event, "max_retries", b, "maxRetries");
                copy(event, "retry_delay_ms", b, "retryDelayMs");
                copy(event, "error_status", b, "status");
                copy(event, "error", b, "error");
                out.emit(chunks.custom(API_RETRY, b.build()));
            }
            default -> {
                // compact_boundary, hook and other notices carry nothing the log needs.
            }
        }
    }

    private static void copy(JsonObject from, String name, JsonObjectBuilder to, String as) {
        JsonValue v = from.get(name);
        if (v != null) {
            to.add(as, v);
        }
    }

    private void assistant(JsonObject event, Out out) {
        if (event.getBoolean("is_api_error_message", false)) {
            // Claude Code's own message about a failed model request, not the model speaking.
            JsonObjectBuilder b = JSON.createObjectBuilder();
            copy(event, "api_error_status", b, "status");
            copy(event, "error", b, "error");
            b.add(
                    "message",
                    contentBlocks(event).stream()
                            .map(block -> Chunks.string(block, "text").orElse(""))
                            .collect(Collectors.joining("\n")));
            out.emit(chunks.custom(API_ERROR, b.build()));
            return;
        }
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
