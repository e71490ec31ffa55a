package dev.agentbox.agent;

import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which streamed tool call an approval is about. The gate that asks knows the tool's name and its
 * arguments, not the id the agent's translator gave the call in the stream; AG-UI clients tie an
 * approval to a tool call by {@code toolCallId} ({@code @tanstack/ai-client} marks that call as
 * awaiting approval and raises its approval request only then). So an approval interrupt without an
 * id gets the id of the latest tool call of the segment with the same name and equal arguments that
 * has no result yet.
 *
 * <p>A pure function of the chunks seen, like the segment: a replay names the same call. When the
 * agent's line with the call is stored after the interrupt (the two reach the log by different
 * paths), or no call matches, the interrupt keeps no id, as before.
 */
final class ApprovedToolCalls {

    private record Call(String id, String name, StringBuilder args) {}

    private final Map<String, Call> unanswered = new LinkedHashMap<>();

    /** Records what a stored chunk says about tool calls. */
    void accept(String type, JsonObject chunk) {
        if (!(chunk.get("toolCallId") instanceof JsonString idValue)) {
            return;
        }
        String id = idValue.getString();
        switch (type) {
            case "TOOL_CALL_START" -> {
                if (unanswered.size() < 1024) {
                    unanswered.put(
                            id,
                            new Call(id, chunk.getString("toolCallName", ""), new StringBuilder()));
                }
            }
            case "TOOL_CALL_ARGS" -> {
                Call c = unanswered.get(id);
                if (c != null && c.args().length() < 256 * 1024) {
                    c.args().append(chunk.getString("delta", ""));
                }
            }
            case "TOOL_CALL_RESULT" -> unanswered.remove(id);
            default -> {
                // nothing about tool calls
            }
        }
    }

    /** {@code interrupt} with the {@code toolCallId} of its call added, when one matches. */
    JsonObject withToolCallId(JsonObject interrupt) {
        if (interrupt.containsKey("toolCallId")
                || !AgUiInterrupts.APPROVAL.equals(interrupt.getString("reason", ""))) {
            return interrupt;
        }
        String tool = interrupt.getString("tool", "");
        JsonValue arguments = interrupt.getOrDefault("arguments", JsonValue.EMPTY_JSON_OBJECT);
        List<Call> calls = new ArrayList<>(unanswered.values());
        for (int i = calls.size() - 1; i >= 0; i--) {
            Call c = calls.get(i);
            if (c.name().equals(tool)
                    && parse(c.args().toString()).equals(Optional.of(arguments))) {
                return Json.createObjectBuilder(interrupt).add("toolCallId", c.id()).build();
            }
        }
        return interrupt;
    }

    private static Optional<JsonValue> parse(String json) {
        if (json.isBlank()) {
            return Optional.of(JsonValue.EMPTY_JSON_OBJECT);
        }
        try (var r = Json.createReader(new StringReader(json))) {
            return Optional.of(r.readValue());
        } catch (JsonException | IllegalStateException e) {
            return Optional.empty();
        }
    }
}
