package dev.agentbox.run.harness;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The shape rules of AG-UI 1.0's event schemas for the types agentbox writes ({@link ChunkType}),
 * plus agentbox's own: every chunk carries string {@code threadId}/{@code runId} and an integer
 * {@code timestamp}, and no chunk carries {@code subagentRunId} (agentbox has no subagent events,
 * and AG-UI's verifier refuses a {@code null} one and checks a string one against its opener).
 *
 * <p>AG-UI's event objects are loose: members it does not name are tolerated and not checked here.
 * The members it does name are checked wherever present, because a client validates them: e.g. a
 * {@code metadata} that is not an object, a {@code rawEvent} that is {@code null}, a text message
 * role outside {@code developer|system|assistant|user}.
 */
public final class AgUiSchema {

    private static final Set<String> TEXT_ROLES =
            Set.of("developer", "system", "assistant", "user");

    private static final List<String> TOKEN_COUNTS =
            List.of(
                    "inputTokens",
                    "outputTokens",
                    "totalTokens",
                    "reasoningTokens",
                    "cachedInputTokens",
                    "cacheWriteInputTokens");

    /** JavaScript's largest safe integer: AG-UI's integer bound. */
    private static final BigDecimal MAX_SAFE = BigDecimal.valueOf(9007199254740991L);

    private AgUiSchema() {}

    /** What makes {@code chunk} violate its type's schema; empty when it conforms. */
    public static List<String> problems(JsonObject chunk) {
        List<String> p = new ArrayList<>();
        Optional<ChunkType> type = Chunks.typeOf(chunk);
        if (type.isEmpty()) {
            p.add("type: missing or not in the vocabulary");
            return p;
        }
        requireString(chunk, "threadId", p);
        requireString(chunk, "runId", p);
        if (!isSafeInteger(chunk.get("timestamp"))) {
            p.add("timestamp: missing or not an integer");
        }
        if (chunk.containsKey("metadata")
                && chunk.get("metadata").getValueType() != JsonValue.ValueType.OBJECT) {
            p.add("metadata: not an object");
        }
        if (chunk.containsKey("rawEvent")
                && chunk.get("rawEvent").getValueType() == JsonValue.ValueType.NULL) {
            p.add("rawEvent: null");
        }
        if (chunk.containsKey("subagentRunId")) {
            p.add("subagentRunId: not supported");
        }
        typeFields(type.get(), chunk, p);
        return p;
    }

    private static void typeFields(ChunkType type, JsonObject c, List<String> p) {
        switch (type) {
            case TEXT_MESSAGE_START -> {
                requireString(c, "messageId", p);
                optionalString(c, "name", p);
                if (c.containsKey("role")
                        && Chunks.string(c, "role").filter(TEXT_ROLES::contains).isEmpty()) {
                    p.add("role: not one of " + TEXT_ROLES);
                }
            }
            case TEXT_MESSAGE_CONTENT, REASONING_MESSAGE_CONTENT -> {
                requireString(c, "messageId", p);
                requireString(c, "delta", p);
            }
            case TEXT_MESSAGE_END, REASONING_START, REASONING_MESSAGE_END, REASONING_END ->
                    requireString(c, "messageId", p);
            case REASONING_MESSAGE_START -> {
                requireString(c, "messageId", p);
                if (Chunks.string(c, "role").filter("reasoning"::equals).isEmpty()) {
                    p.add("role: not \"reasoning\"");
                }
            }
            case TOOL_CALL_START -> {
                requireString(c, "toolCallId", p);
                requireString(c, "toolCallName", p);
                optionalString(c, "parentMessageId", p);
            }
            case TOOL_CALL_ARGS -> {
                requireString(c, "toolCallId", p);
                requireString(c, "delta", p);
            }
            case TOOL_CALL_END -> requireString(c, "toolCallId", p);
            case TOOL_CALL_RESULT -> {
                requireString(c, "messageId", p);
                requireString(c, "toolCallId", p);
                if (!isResultContent(c.get("content"))) {
                    p.add("content: not a string or an array of text parts");
                }
                if (c.containsKey("role")
                        && Chunks.string(c, "role").filter("tool"::equals).isEmpty()) {
                    p.add("role: not \"tool\"");
                }
            }
            case CUSTOM -> {
                requireString(c, "name", p);
                if (!c.containsKey("value")) {
                    p.add("value: missing");
                }
            }
            case STEP_STARTED, STEP_FINISHED -> requireString(c, "stepName", p);
            case RUN_STARTED -> {
                optionalString(c, "parentRunId", p);
                optionalString(c, "protocolVersion", p);
                if (c.containsKey("input")) {
                    p.add("input: not written by agentbox");
                }
            }
            case RUN_FINISHED -> {
                if (c.containsKey("result")
                        && c.get("result").getValueType() == JsonValue.ValueType.NULL) {
                    p.add("result: null");
                }
                if (c.containsKey("outcome")) {
                    p.add("outcome: not written by agentbox");
                }
                usage(c, p);
            }
            case RUN_ERROR -> {
                requireString(c, "message", p);
                requireString(c, "code", p);
                usage(c, p);
            }
        }
    }

    /** {@code usage}, when present: an array of TokenUsage objects. */
    private static void usage(JsonObject c, List<String> p) {
        JsonValue usage = c.get("usage");
        if (usage == null) {
            return;
        }
        if (usage.getValueType() != JsonValue.ValueType.ARRAY) {
            p.add("usage: not an array");
            return;
        }
        for (JsonValue entry : usage.asJsonArray()) {
            if (entry.getValueType() != JsonValue.ValueType.OBJECT) {
                p.add("usage: an entry is not an object");
                continue;
            }
            JsonObject u = entry.asJsonObject();
            optionalString(u, "provider", p);
            optionalString(u, "model", p);
            for (String count : TOKEN_COUNTS) {
                if (u.containsKey(count)
                        && !(isSafeInteger(u.get(count))
                                && ((JsonNumber) u.get(count)).bigDecimalValue().signum() >= 0)) {
                    p.add("usage." + count + ": not a non-negative integer");
                }
            }
        }
    }

    /** A string, or an array of {@code {"type":"text","text":…}} parts. */
    private static boolean isResultContent(JsonValue content) {
        if (content == null) {
            return false;
        }
        if (content.getValueType() == JsonValue.ValueType.STRING) {
            return true;
        }
        if (content.getValueType() != JsonValue.ValueType.ARRAY) {
            return false;
        }
        for (JsonValue part : content.asJsonArray()) {
            if (part.getValueType() != JsonValue.ValueType.OBJECT) {
                return false;
            }
            JsonObject o = part.asJsonObject();
            boolean text =
                    Chunks.string(o, "type").filter("text"::equals).isPresent()
                            && Chunks.string(o, "text").isPresent()
                            && (!o.containsKey("id") || Chunks.string(o, "id").isPresent())
                            && (!o.containsKey("metadata")
                                    || o.get("metadata").getValueType()
                                            != JsonValue.ValueType.NULL);
            if (!text) {
                return false;
            }
        }
        return true;
    }

    static boolean isSafeInteger(JsonValue value) {
        if (value == null || value.getValueType() != JsonValue.ValueType.NUMBER) {
            return false;
        }
        BigDecimal n = ((JsonNumber) value).bigDecimalValue();
        return n.stripTrailingZeros().scale() <= 0 && n.abs().compareTo(MAX_SAFE) <= 0;
    }

    private static void requireString(JsonObject c, String field, List<String> p) {
        if (Chunks.string(c, field).isEmpty()) {
            p.add(field + (c.containsKey(field) ? ": not a string" : ": missing"));
        }
    }

    private static void optionalString(JsonObject c, String field, List<String> p) {
        if (c.containsKey(field) && Chunks.string(c, field).isEmpty()) {
            p.add(field + ": not a string");
        }
    }
}
