package dev.agentbox.agent;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * An assistant UIMessage of a transcript ({@link AssistantMessage}) as AG-UI {@code Message}s: one
 * {@code assistant} message (its text parts joined, its tool calls as {@code toolCalls}) and a
 * {@code tool} message per tool result ({@code <toolCallId>-result}); thinking parts are left out.
 */
final class AgUiMessages {

    private AgUiMessages() {}

    static List<JsonObject> of(JsonObject uiMessage) {
        StringBuilder text = new StringBuilder();
        JsonArrayBuilder calls = Json.createArrayBuilder();
        boolean anyCall = false;
        List<JsonObject> results = new ArrayList<>();
        for (JsonObject part : uiMessage.getJsonArray("parts").getValuesAs(JsonObject.class)) {
            switch (part.getString("type", "")) {
                case "text" -> text.append(part.getString("content", ""));
                case "tool-call" -> {
                    anyCall = true;
                    calls.add(
                            Json.createObjectBuilder()
                                    .add("id", part.getString("id"))
                                    .add("type", "function")
                                    .add(
                                            "function",
                                            Json.createObjectBuilder()
                                                    .add("name", part.getString("name"))
                                                    .add(
                                                            "arguments",
                                                            part.getString("arguments", ""))));
                }
                case "tool-result" ->
                        results.add(
                                Json.createObjectBuilder()
                                        .add("id", part.getString("toolCallId") + "-result")
                                        .add("role", "tool")
                                        .add("toolCallId", part.getString("toolCallId"))
                                        .add("content", part.getString("content", ""))
                                        .build());
                default -> {
                    // thinking: not part of an AG-UI message
                }
            }
        }
        List<JsonObject> out = new ArrayList<>();
        JsonObjectBuilder a =
                Json.createObjectBuilder()
                        .add("id", uiMessage.getString("id"))
                        .add("role", "assistant");
        if (text.length() > 0) {
            a.add("content", text.toString());
        }
        if (anyCall) {
            a.add("toolCalls", calls);
        }
        if (text.length() > 0 || anyCall) {
            out.add(a.build());
        }
        out.addAll(results);
        return out;
    }
}
