package dev.agentbox.agent;

import static dev.agentbox.agent.AgentTemplate.invalid;

import dev.agentbox.agent.RunAgentInput.Message;
import dev.agentbox.agent.RunAgentInput.Resume;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.sandbox.GivenSecrets;
import dev.agentbox.sandbox.SecretEntries;
import dev.agentbox.tool.ClientTool;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads an AG-UI {@code RunAgentInput} ({@link AgUiInputBody}) into a {@link RunAgentInput}, from
 * top to bottom: the ids, each message (its content's text), the prompt (the last {@code user}
 * message's text), {@code forwardedProps.agentbox}'s secrets and secret set, the client's tools,
 * the resume entries, then the {@code tool} messages' results. What its records cannot say is here:
 * contents and tools of several shapes, the secrets' names, which statuses answer an interrupt.
 */
final class RunAgentInputReader {

    /** The tool name the bridge reserves for Claude Code's permission prompt. */
    private static final String RESERVED_TOOL = "approve";

    private RunAgentInputReader() {}

    static RunAgentInput read(JsonValue body) {
        if (!(body instanceof JsonObject)) {
            throw invalid("body", "must be a JSON object (an AG-UI RunAgentInput)");
        }
        JsonMembers<AgUiInputBody> m = JsonMembers.lenient(body, "", AgUiInputBody.class);
        JsonArray messages = m.through("messages");
        int last = -1;
        List<Message> all = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            Message message = message(messages.get(i), "messages[" + i + "]");
            all.add(message);
            if (message.role().equals("user")) {
                last = i;
            }
        }
        if (last < 0) {
            throw invalid("messages", "must hold a message with role \"user\" (the prompt)");
        }
        String prompt = all.get(last).text();
        if (prompt.isEmpty()) {
            throw invalid("messages[" + last + "].content", "has no text");
        }
        Agentbox agentbox = agentbox(m.through("forwardedProps"));
        List<ClientTool> tools = tools(m.through("tools"));
        AgUiInputBody b = m.finish();
        String userMessageId =
                messages.getJsonObject(last).get("id") instanceof JsonString s
                                && !s.getString().isEmpty()
                        ? s.getString()
                        : b.runId() + "-user";
        List<Message> earlier =
                all.subList(0, last).stream()
                        .filter(x -> x.role().equals("user") || x.role().equals("assistant"))
                        .filter(x -> !x.text().isEmpty())
                        .toList();
        return new RunAgentInput(
                b.threadId(),
                b.runId(),
                userMessageId,
                prompt,
                earlier,
                agentbox.secrets(),
                agentbox.secretSet(),
                tools,
                resume(b.resume()),
                toolResults(messages));
    }

    /** One message: an object with a role, maybe a string id, and a content (its text). */
    private static Message message(JsonValue value, String field) {
        if (!(value instanceof JsonObject o)) {
            throw invalid(field, "must be an object");
        }
        JsonMembers<AgUiInputBody.Message> m =
                JsonMembers.lenient(o, field, AgUiInputBody.Message.class);
        String role = m.through("role");
        // A null id is not an absent one: when a message has an id, it is a string.
        if (o.get("id") == JsonValue.NULL) {
            throw invalid(field + ".id", AgUiInputBody.Message.ID);
        }
        m.finish();
        return new Message(role, text(o.get("content"), field + ".content"));
    }

    /** What {@code forwardedProps.agentbox} gives: the run's secrets and a secret set's name. */
    private record Agentbox(GivenSecrets secrets, Optional<String> secretSet) {
        static final Agentbox NONE = new Agentbox(GivenSecrets.NONE, Optional.empty());
    }

    /**
     * {@code forwardedProps.agentbox}: its {@code secrets} (names are shell variable names, values
     * strings without NUL or {@code {"value","brokerHosts"}}, exactly as {@code workspace.secrets}
     * takes them; a value is never echoed), and the secret set it names. A {@code forwardedProps}
     * that is not an object is not the server's.
     */
    private static Agentbox agentbox(JsonValue forwardedProps) {
        if (!(forwardedProps instanceof JsonObject props)) {
            return Agentbox.NONE;
        }
        String at = "forwardedProps";
        JsonObject agentbox =
                JsonMembers.lenient(props, at, AgUiInputBody.ForwardedProps.class)
                        .finish()
                        .agentbox();
        if (agentbox == null) {
            return Agentbox.NONE;
        }
        JsonMembers<AgUiInputBody.Agentbox> m =
                JsonMembers.lenient(agentbox, at + ".agentbox", AgUiInputBody.Agentbox.class);
        GivenSecrets secrets = SecretEntries.read(m.through("secrets"), at + ".agentbox.secrets");
        return new Agentbox(secrets, Optional.ofNullable(m.finish().secretSet()));
    }

    /**
     * {@code tools}: AG-UI tools {@code [{name, description, parameters}]} the client runs itself;
     * names are MCP tool names, unique, not {@value #RESERVED_TOOL}; schemas bounded ({@link
     * ClientTool}).
     */
    private static List<ClientTool> tools(JsonArray a) {
        if (a == null) {
            return List.of();
        }
        List<ClientTool> tools = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < a.size(); i++) {
            String field = "tools[" + i + "]";
            if (!(a.get(i) instanceof JsonObject t)) {
                throw invalid(field, "must be an object {name, description, parameters}");
            }
            ClientTool tool;
            try {
                tool = ClientTool.fromJson(t);
            } catch (IllegalArgumentException e) {
                throw invalid(field, e.getMessage());
            }
            if (tool.name().equals(RESERVED_TOOL) || !names.add(tool.name())) {
                throw invalid(field + ".name", "is reserved or named twice: " + tool.name());
            }
            tools.add(tool);
        }
        return List.copyOf(tools);
    }

    /** {@code resume}: each the answer {@code resolved} or {@code cancelled} to an interrupt. */
    private static List<Resume> resume(JsonArray a) {
        if (a == null) {
            return List.of();
        }
        List<Resume> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            String field = "resume[" + i + "]";
            if (!(a.get(i) instanceof JsonObject o)) {
                throw invalid(field, "must be an object {interruptId, status, payload?}");
            }
            AgUiInputBody.Resume r =
                    JsonMembers.lenient(o, field, AgUiInputBody.Resume.class).finish();
            InterruptStatus status =
                    InterruptStatus.of(r.status())
                            .filter(
                                    x ->
                                            x == InterruptStatus.RESOLVED
                                                    || x == InterruptStatus.CANCELLED)
                            .orElseThrow(
                                    () -> invalid(field + ".status", AgUiInputBody.Resume.STATUS));
            out.add(
                    new Resume(
                            r.interruptId(),
                            status,
                            r.payload() == null ? JsonValue.NULL : r.payload()));
        }
        return List.copyOf(out);
    }

    /** The {@code tool} messages' results by {@code toolCallId} (their content's text). */
    private static Map<String, String> toolResults(JsonArray messages) {
        Map<String, String> results = new LinkedHashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonObject m = messages.getJsonObject(i);
            if (!"tool".equals(m.getString("role", ""))) {
                continue;
            }
            if (!(m.get("toolCallId") instanceof JsonString id) || id.getString().isEmpty()) {
                throw invalid("messages[" + i + "].toolCallId", "is required on a tool message");
            }
            results.put(id.getString(), text(m.get("content"), "messages[" + i + "].content"));
        }
        return Map.copyOf(results);
    }

    /**
     * A content's text: a string, or an array of parts whose {@code {type:"text", text}} parts are
     * joined with newlines (other parts, e.g. images, carry no text); absent content has none.
     */
    private static String text(JsonValue content, String field) {
        if (content == null || content == JsonValue.NULL) {
            return "";
        }
        if (content instanceof JsonString s) {
            return s.getString();
        }
        if (!(content instanceof JsonArray parts)) {
            throw invalid(field, "must be a string or an array of parts");
        }
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            if (!(parts.get(i) instanceof JsonObject p)) {
                throw invalid(field + "[" + i + "]", "must be an object");
            }
            if (p.get("type") instanceof JsonString t && t.getString().equals("text")) {
                if (!(p.get("text") instanceof JsonString text)) {
                    throw invalid(field + "[" + i + "].text", "must be a string");
                }
                texts.add(text.getString());
            }
        }
        return String.join("\n", texts);
    }
}
