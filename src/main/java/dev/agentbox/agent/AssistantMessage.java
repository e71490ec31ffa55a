package dev.agentbox.agent;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Assembles one run's stored chunks into the assistant message of {@code @tanstack/ai-client}'s
 * UIMessage shape: text parts from {@code TEXT_MESSAGE_CONTENT}, {@code tool-call} parts from
 * {@code TOOL_CALL_START}/{@code TOOL_CALL_ARGS}, {@code tool-result} parts from {@code
 * TOOL_CALL_RESULT}, {@code thinking} parts from {@code REASONING_MESSAGE_CONTENT}, in the order
 * they first appear; other chunks carry no message content. Text beyond the shared {@link Budget}
 * is dropped, so a thread of huge runs still answers with a bounded body.
 */
final class AssistantMessage {

    /**
     * Characters left for the whole transcript: text (prompts, deltas, arguments, results) and
     * {@value #PART_CHARS} for every part, so a hostile run of a million empty tool calls costs as
     * much as a long text and the answer stays bounded either way.
     */
    static final class Budget {
        static final int PART_CHARS = 256;

        private long left;

        Budget(long chars) {
            this.left = chars;
        }

        /** Whether one more part fits; if so, charges it. */
        boolean part() {
            if (left < PART_CHARS) {
                return false;
            }
            left -= PART_CHARS;
            return true;
        }

        /** The part of {@code s} that still fits. */
        String take(String s) {
            if (left <= 0) {
                return "";
            }
            String t = s.length() <= left ? s : s.substring(0, (int) left);
            left -= t.length();
            return t;
        }
    }

    /** A part being assembled: its kind and its growing text. */
    private static final class Part {
        final String type;
        final String id;
        final String name;
        final StringBuilder text = new StringBuilder();
        boolean open = true;

        Part(String type, String id, String name) {
            this.type = type;
            this.id = id;
            this.name = name;
        }
    }

    private final Budget budget;
    private final List<Part> parts = new ArrayList<>();
    private final Map<String, Part> toolCalls = new HashMap<>();
    private String messageId;

    AssistantMessage(Budget budget) {
        this.budget = budget;
    }

    void accept(JsonObject chunk) {
        switch (chunk.getString("type", "")) {
            case "TEXT_MESSAGE_START" -> {
                if (messageId == null) {
                    messageId = string(chunk, "messageId").orElse(null);
                }
                close("text");
            }
            case "TEXT_MESSAGE_CONTENT" -> append("text", string(chunk, "delta").orElse(""));
            case "TEXT_MESSAGE_END" -> close("text");
            case "REASONING_MESSAGE_END" -> close("thinking");
            case "REASONING_MESSAGE_CONTENT" ->
                    append("thinking", string(chunk, "delta").orElse(""));
            case "TOOL_CALL_START" -> {
                if (!budget.part()) {
                    return;
                }
                String id = string(chunk, "toolCallId").orElse("tool-" + toolCalls.size());
                Part p = new Part("tool-call", id, string(chunk, "toolCallName").orElse("unknown"));
                parts.add(p);
                toolCalls.put(id, p);
            }
            case "TOOL_CALL_ARGS" -> {
                Part p = string(chunk, "toolCallId").map(toolCalls::get).orElse(null);
                if (p != null) {
                    p.text.append(budget.take(string(chunk, "delta").orElse("")));
                }
            }
            case "TOOL_CALL_RESULT" -> {
                if (!budget.part()) {
                    return;
                }
                Part p = new Part("tool-result", string(chunk, "toolCallId").orElse(""), null);
                p.text.append(budget.take(content(chunk)));
                p.open = false;
                parts.add(p);
            }
            default -> {
                // RUN_*, CUSTOM, STEP_*, *_END: no message content
            }
        }
    }

    /** The message, or empty when the run produced no content. */
    Optional<JsonObject> toJson(String fallbackId, Instant createdAt) {
        if (parts.isEmpty()) {
            return Optional.empty();
        }
        JsonArrayBuilder a = Json.createArrayBuilder();
        for (Part p : parts) {
            switch (p.type) {
                case "text", "thinking" ->
                        a.add(
                                Json.createObjectBuilder()
                                        .add("type", p.type)
                                        .add("content", p.text.toString()));
                case "tool-call" ->
                        a.add(
                                Json.createObjectBuilder()
                                        .add("type", "tool-call")
                                        .add("id", p.id)
                                        .add("name", p.name)
                                        .add("arguments", p.text.toString())
                                        .add("state", "input-complete"));
                default ->
                        a.add(
                                Json.createObjectBuilder()
                                        .add("type", "tool-result")
                                        .add("toolCallId", p.id)
                                        .add("content", p.text.toString())
                                        .add("state", "complete"));
            }
        }
        return Optional.of(
                Json.createObjectBuilder()
                        .add("id", messageId != null ? messageId : fallbackId)
                        .add("role", "assistant")
                        .add("parts", a)
                        .add("createdAt", createdAt.toString())
                        .build());
    }

    /** Appends to the open part of this type at the end, or starts one. */
    private void append(String type, String delta) {
        Part last = parts.isEmpty() ? null : parts.get(parts.size() - 1);
        if (last == null || !last.type.equals(type) || !last.open) {
            if (!budget.part()) {
                return;
            }
            last = new Part(type, null, null);
            parts.add(last);
        }
        last.text.append(budget.take(delta));
    }

    private void close(String type) {
        if (!parts.isEmpty() && parts.get(parts.size() - 1).type.equals(type)) {
            parts.get(parts.size() - 1).open = false;
        }
    }

    /** A result's content: a string as it is, anything else as its JSON text. */
    private static String content(JsonObject chunk) {
        var v = chunk.get("content");
        if (v == null) {
            return "";
        }
        return v instanceof JsonString s ? s.getString() : v.toString();
    }

    private static Optional<String> string(JsonObject o, String name) {
        return o.get(name) instanceof JsonString s ? Optional.of(s.getString()) : Optional.empty();
    }
}
