package dev.agentbox.run.harness;

import dev.agentbox.platform.CanonicalJson;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The {@code codex} harness: translates the JSONL of {@code codex exec --json … -} (the prompt on
 * stdin). {@link #HANDLED} lists what Codex 0.171.0 prints and this class maps; the tests that run
 * the real CLI hold every line it prints to that list.
 *
 * <ul>
 *   <li>{@code thread.started} → {@code CUSTOM codex.session-id} with the {@code thread_id}.
 *   <li>{@code item.completed} of an {@code agent_message} → a whole text message (role assistant)
 *       with its {@code text}; its {@code item.started}, if any, carries no text yet and is
 *       ignored.
 *   <li>Tool-like items become tool calls named after the item type: {@code command_execution}
 *       (args {@code {"command":…}}, result {@code {"exit_code":…,"output":<aggregated_output>}}),
 *       {@code file_change} (args {@code {"changes":[…]}}, result {@code {"status":…}}), {@code
 *       mcp_tool_call} (args {@code {"server","tool","arguments"}}, result {@code
 *       {"result"|"error","status"}}) and {@code web_search} (args {@code {"query"}}). {@code
 *       item.started} emits TOOL_CALL_START/ARGS/END; {@code item.completed} emits TOOL_CALL_RESULT
 *       (content = canonical JSON of the result), preceded by START/ARGS/END when no start was seen
 *       (codex reports some items only on completion). Args and results are canonical JSON, so they
 *       are byte-stable on replay.
 *   <li>{@code reasoning} (completed, non-empty text) → a whole reasoning span: REASONING_START,
 *       REASONING_MESSAGE_START (role reasoning) / CONTENT / END, REASONING_END, with fresh
 *       run-scoped ids; {@code todo_list} (started/updated/completed) → {@code CUSTOM
 *       codex.todo-list} with its items; an {@code error} item (a non-fatal notice) → {@code CUSTOM
 *       codex.warning}.
 *   <li>{@code turn.completed} → its {@code usage} is added into {@link #usage()} (numeric members
 *       summed over turns).
 *   <li>An exit 0 → {@code RUN_FINISHED} whose {@code result} is the text of the last non-empty
 *       {@code agent_message}, when there was one.
 *   <li>{@code turn.failed} ({@code error.message}) → {@code RUN_ERROR} code {@code agent-error}.
 *   <li>A top-level {@code error} ({@code message}) → {@code CUSTOM codex.error} with the message:
 *       Codex prints one for every retry of a model request ({@code "Reconnecting... 1/5 (…)"}) and
 *       may recover, and before a {@code turn.failed} with the same message. A non-zero exit with
 *       no {@code turn.failed} ends the run with {@code RUN_ERROR} code {@code agent-error} and the
 *       last such message, when there was one.
 *   <li>A line that is not a JSON object → {@code CUSTOM agent.text}; other events ({@code
 *       turn.started}, unknown types) are ignored.
 * </ul>
 *
 * Codex item ids ({@code item_0}…) are mapped to run-scoped ids in order of appearance, so a replay
 * of the same lines yields the same ids.
 */
final class CodexTranslator extends TranslatorBase {

    /** Looked up once: {@code Json.createX} looks the provider up on every call, which is slow. */
    private static final JsonProvider JSON = JsonProvider.provider();

    public static final String SESSION_ID = "codex.session-id";
    public static final String TODO_LIST = "codex.todo-list";
    public static final String WARNING = "codex.warning";
    public static final String ERROR = "codex.error";

    /**
     * The lines this translator maps: event types, and {@code item.*} events as {@code
     * item.<phase>/<item type>}. Everything Codex 0.171.0 was seen to print in text, tool,
     * read-only, retry, failed and resumed runs, plus the item types of its exec JSON format.
     */
    public static final Set<String> HANDLED =
            Set.of(
                    "thread.started",
                    "turn.started",
                    "turn.completed",
                    "turn.failed",
                    "error",
                    "item.started/command_execution",
                    "item.completed/command_execution",
                    "item.updated/command_execution",
                    "item.completed/agent_message",
                    "item.completed/reasoning",
                    "item.completed/error",
                    "item.started/file_change",
                    "item.completed/file_change",
                    "item.started/mcp_tool_call",
                    "item.completed/mcp_tool_call",
                    "item.started/web_search",
                    "item.completed/web_search",
                    "item.started/todo_list",
                    "item.updated/todo_list",
                    "item.completed/todo_list");

    /** How {@link #HANDLED} names a line: its type, with the item's type for an item event. */
    public static String eventKind(JsonObject event) {
        String type = Chunks.string(event, "type").orElse("");
        if (type.startsWith("item.") && event.get("item") instanceof JsonObject item) {
            return type + "/" + Chunks.string(item, "type").orElse("");
        }
        return type;
    }

    private final Map<String, String> toolCallIds = new HashMap<>();
    private final Map<String, JsonValue> usage = new TreeMap<>();
    private Optional<String> lastAgentMessage = Optional.empty();
    private Optional<String> lastError = Optional.empty();

    public CodexTranslator(String runId, String threadId, LongSupplier timestamps) {
        super(runId, threadId, timestamps);
    }

    @Override
    public Optional<JsonObject> usage() {
        if (usage.isEmpty()) {
            return Optional.empty();
        }
        JsonObjectBuilder b = JSON.createObjectBuilder();
        usage.forEach(b::add);
        return Optional.of(b.build());
    }

    /**
     * RUN_FINISHED with the last agent message's text as its {@code result}, when there was one.
     */
    @Override
    protected JsonObject finished() {
        return lastAgentMessage
                .map(t -> chunks.runFinished(JSON.createValue(t)))
                .orElseGet(chunks::runFinished);
    }

    /** A failed exit after an {@code error} line and no {@code turn.failed}: that error. */
    @Override
    protected JsonObject exitedWithError(int exitCode, String stderr) {
        return lastError
                .map(message -> chunks.runError(message, AGENT_ERROR))
                .orElseGet(() -> super.exitedWithError(exitCode, stderr));
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
            case "thread.started" ->
                    Chunks.string(event, "thread_id")
                            .ifPresent(id -> out.emit(chunks.custom(SESSION_ID, id)));
            case "item.started" -> item(event, Phase.STARTED, out);
            case "item.updated" -> item(event, Phase.UPDATED, out);
            case "item.completed" -> item(event, Phase.COMPLETED, out);
            case "turn.completed" -> addUsage(event.get("usage"));
            case "turn.failed" ->
                    out.emit(chunks.runError(errorMessage(event.get("error")), AGENT_ERROR));
            case "error" -> {
                String message = Chunks.string(event, "message").orElse("Codex reported an error");
                lastError = Optional.of(message);
                out.emit(chunks.custom(ERROR, message));
            }
            default -> {
                // turn.started and unknown events carry nothing the log needs.
            }
        }
    }

    private enum Phase {
        STARTED,
        UPDATED,
        COMPLETED
    }

    private void item(JsonObject event, Phase phase, Out out) {
        JsonValue value = event.get("item");
        if (value == null || value.getValueType() != JsonValue.ValueType.OBJECT) {
            return;
        }
        JsonObject item = value.asJsonObject();
        String itemType = Chunks.string(item, "type").orElse("");
        switch (itemType) {
            case "agent_message" -> {
                if (phase == Phase.COMPLETED) {
                    String text = Chunks.string(item, "text").orElse("");
                    out.textMessage("assistant", text);
                    if (!text.isEmpty()) {
                        lastAgentMessage = Optional.of(text);
                    }
                }
            }
            case "reasoning" -> {
                if (phase == Phase.COMPLETED) {
                    out.reasoning(Chunks.string(item, "text").orElse(""));
                }
            }
            case "todo_list" ->
                    out.emit(
                            chunks.custom(
                                    TODO_LIST,
                                    item.getOrDefault("items", JsonValue.EMPTY_JSON_ARRAY)));
            case "error" -> {
                if (phase == Phase.COMPLETED) {
                    out.emit(chunks.custom(WARNING, Chunks.string(item, "message").orElse("")));
                }
            }
            case "command_execution", "file_change", "mcp_tool_call", "web_search" ->
                    toolItem(itemType, item, phase, out);
            default -> {
                // Unknown item types: nothing to show.
            }
        }
    }

    private void toolItem(String itemType, JsonObject item, Phase phase, Out out) {
        String itemId = Chunks.string(item, "id").orElse("");
        if (phase == Phase.UPDATED) {
            return;
        }
        Optional<String> known =
                itemId.isEmpty() ? Optional.empty() : Optional.ofNullable(toolCallIds.get(itemId));
        String toolCallId =
                known.orElseGet(
                        () -> {
                            String id = ids.next();
                            if (!itemId.isEmpty()) {
                                toolCallIds.put(itemId, id);
                            }
                            out.toolCall(id, itemType, CanonicalJson.of(args(itemType, item)));
                            return id;
                        });
        if (phase == Phase.COMPLETED) {
            out.emit(
                    chunks.toolCallResult(
                            ids.next(), toolCallId, CanonicalJson.of(result(itemType, item))));
        }
    }

    private static JsonObject args(String itemType, JsonObject item) {
        return switch (itemType) {
            case "command_execution" -> pick(item, "command");
            case "file_change" -> pick(item, "changes");
            case "mcp_tool_call" -> pick(item, "server", "tool", "arguments");
            default -> pick(item, "query");
        };
    }

    private static JsonObject result(String itemType, JsonObject item) {
        if (itemType.equals("command_execution")) {
            JsonObjectBuilder b = JSON.createObjectBuilder();
            b.add("exit_code", item.getOrDefault("exit_code", JsonValue.NULL));
            b.add("output", item.getOrDefault("aggregated_output", JSON.createValue("")));
            return b.build();
        }
        return switch (itemType) {
            case "mcp_tool_call" -> pick(item, "result", "error", "status");
            default -> pick(item, "status");
        };
    }

    /** The named members of {@code item} that are present. */
    private static JsonObject pick(JsonObject item, String... names) {
        JsonObjectBuilder b = JSON.createObjectBuilder();
        for (String name : names) {
            if (item.containsKey(name)) {
                b.add(name, item.get(name));
            }
        }
        return b.build();
    }

    private static String errorMessage(JsonValue error) {
        if (error != null && error.getValueType() == JsonValue.ValueType.OBJECT) {
            return Chunks.string(error.asJsonObject(), "message").orElse("Codex turn failed");
        }
        return "Codex turn failed";
    }

    private void addUsage(JsonValue reported) {
        if (reported == null || reported.getValueType() != JsonValue.ValueType.OBJECT) {
            return;
        }
        reported.asJsonObject()
                .forEach(
                        (name, value) -> {
                            JsonValue previous = usage.get(name);
                            if (value.getValueType() == JsonValue.ValueType.NUMBER
                                    && previous != null
                                    && previous.getValueType() == JsonValue.ValueType.NUMBER) {
                                usage.put(
                                        name,
                                        JSON.createValue(
                                                ((JsonNumber) previous)
                                                        .bigDecimalValue()
                                                        .add(
                                                                ((JsonNumber) value)
                                                                        .bigDecimalValue())));
                            } else {
                                usage.put(name, value);
                            }
                        });
    }
}
