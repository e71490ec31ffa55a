package dev.agentbox.agent;

import static dev.agentbox.agent.AgentTemplate.invalid;

import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.run.RunRequest;
import dev.agentbox.tool.ClientTool;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the service takes from an AG-UI {@code RunAgentInput}: ids, the prompt (the text of the last
 * {@code user} message), the text of the messages before it, and the run's secrets from {@code
 * forwardedProps.agentbox.secrets}, the client's own tools ({@code tools}) and its answers to the
 * previous run's interrupts ({@code resume} entries, {@code tool} messages by {@code toolCallId}).
 * Members it does not use ({@code context}, {@code state}, and whatever else a client sends, e.g.
 * {@code parentRunId}) are tolerated, not validated.
 *
 * @param earlier the user and assistant messages before the prompt's, oldest first, with text
 * @param secrets environment variables for the sandbox: never stored, never logged
 * @param secretSet the tenant's named secret set ({@code forwardedProps.agentbox.secretSet}) whose
 *     variables the run also gets ({@link SecretSets}); {@code secrets} win on a clash
 */
public record RunAgentInput(
        String threadId,
        String runId,
        String userMessageId,
        String prompt,
        List<Message> earlier,
        Map<String, String> secrets,
        Optional<String> secretSet,
        List<ClientTool> tools,
        List<Resume> resume,
        Map<String, String> toolResults) {

    /** A message's role and its text. */
    public record Message(String role, String text) {}

    /**
     * One {@code resume} entry: the answer to an interrupt of the thread's previous AG-UI run.
     *
     * @param payload the answer's payload, {@code JsonValue.NULL} when absent
     */
    public record Resume(String interruptId, InterruptStatus status, JsonValue payload) {}

    /** At most this many client tools, resume entries. */
    static final int MAX_TOOLS = 64;

    static final int MAX_RESUME = 64;

    /** The tool name the bridge reserves for Claude Code's permission prompt. */
    private static final String RESERVED_TOOL = "approve";

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int MAX_MESSAGE_ID = 255;

    @Override
    public String toString() {
        // Secrets never reach a log line, also not through an accidental toString().
        return "RunAgentInput[threadId=" + threadId + ", runId=" + runId + "]";
    }

    public static RunAgentInput parse(JsonValue body) {
        if (!(body instanceof JsonObject o)) {
            throw invalid("body", "must be a JSON object (an AG-UI RunAgentInput)");
        }
        String threadId = id(o, "threadId");
        String runId = id(o, "runId");
        if (!(o.get("messages") instanceof JsonArray messages)) {
            throw invalid("messages", "is required: an array of AG-UI messages");
        }
        int last = -1;
        List<Message> all = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            String field = "messages[" + i + "]";
            if (!(messages.get(i) instanceof JsonObject m)) {
                throw invalid(field, "must be an object");
            }
            if (!(m.get("role") instanceof JsonString role) || role.getString().isEmpty()) {
                throw invalid(field + ".role", "is required: a string (user, assistant, …)");
            }
            JsonValue id = m.get("id");
            if (id != null
                    && (!(id instanceof JsonString s) || s.getString().length() > MAX_MESSAGE_ID)) {
                throw invalid(field + ".id", "must be a string of at most 255 characters");
            }
            all.add(new Message(role.getString(), text(m.get("content"), field + ".content")));
            if (role.getString().equals("user")) {
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
        JsonObject lastUser = messages.getJsonObject(last);
        String userMessageId =
                lastUser.get("id") instanceof JsonString s && !s.getString().isEmpty()
                        ? s.getString()
                        : runId + "-user";
        List<Message> earlier =
                all.subList(0, last).stream()
                        .filter(m -> m.role().equals("user") || m.role().equals("assistant"))
                        .filter(m -> !m.text().isEmpty())
                        .toList();
        return new RunAgentInput(
                threadId,
                runId,
                userMessageId,
                prompt,
                earlier,
                secrets(o),
                secretSet(o),
                tools(o),
                resume(o),
                toolResults(messages));
    }

    /** Whether this input answers interrupts (a {@code resume} or a {@code tool} message). */
    public boolean answers() {
        return !resume.isEmpty() || !toolResults.isEmpty();
    }

    /**
     * {@code tools}: AG-UI tools {@code [{name, description, parameters}]} the client runs itself;
     * names are MCP tool names, unique, not {@value #RESERVED_TOOL}; schemas bounded ({@link
     * ClientTool}).
     */
    private static List<ClientTool> tools(JsonObject o) {
        JsonValue v = o.get("tools");
        if (v == null || v == JsonValue.NULL) {
            return List.of();
        }
        if (!(v instanceof JsonArray a)) {
            throw invalid("tools", "must be an array of AG-UI tools");
        }
        if (a.size() > MAX_TOOLS) {
            throw invalid("tools", "has more than " + MAX_TOOLS + " tools");
        }
        List<ClientTool> tools = new ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
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

    /** {@code resume}: {@code [{interruptId, status:"resolved"|"cancelled", payload?}]}. */
    private static List<Resume> resume(JsonObject o) {
        JsonValue v = o.get("resume");
        if (v == null || v == JsonValue.NULL) {
            return List.of();
        }
        if (!(v instanceof JsonArray a)) {
            throw invalid("resume", "must be an array of {interruptId, status, payload?}");
        }
        if (a.size() > MAX_RESUME) {
            throw invalid("resume", "has more than " + MAX_RESUME + " entries");
        }
        List<Resume> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            String field = "resume[" + i + "]";
            if (!(a.get(i) instanceof JsonObject r)) {
                throw invalid(field, "must be an object {interruptId, status, payload?}");
            }
            if (!(r.get("interruptId") instanceof JsonString id)
                    || id.getString().isEmpty()
                    || id.getString().length() > MAX_MESSAGE_ID) {
                throw invalid(field + ".interruptId", "is required: an interrupt's id");
            }
            InterruptStatus status =
                    r.get("status") instanceof JsonString st
                            ? InterruptStatus.of(st.getString())
                                    .filter(
                                            x ->
                                                    x == InterruptStatus.RESOLVED
                                                            || x == InterruptStatus.CANCELLED)
                                    .orElse(null)
                            : null;
            if (status == null) {
                throw invalid(field + ".status", "must be resolved or cancelled");
            }
            out.add(new Resume(id.getString(), status, r.getOrDefault("payload", JsonValue.NULL)));
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

    private static String id(JsonObject o, String name) {
        if (!(o.get(name) instanceof JsonString s) || s.getString().isEmpty()) {
            throw invalid(name, "is required: a non-empty string");
        }
        RunRequest.requireId(name, s.getString());
        return s.getString();
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

    private static Optional<String> secretSet(JsonObject o) {
        if (!(o.get("forwardedProps") instanceof JsonObject props)
                || !(props.get("agentbox") instanceof JsonObject agentbox)) {
            return Optional.empty();
        }
        JsonValue set = agentbox.get("secretSet");
        if (set == null || set == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(set instanceof JsonString name) || name.getString().isEmpty()) {
            throw invalid(SecretSets.FIELD, "must be the name of a secret set");
        }
        return Optional.of(name.getString());
    }

    private static Map<String, String> secrets(JsonObject o) {
        JsonValue fp = o.get("forwardedProps");
        if (!(fp instanceof JsonObject props)) {
            return Map.of();
        }
        JsonValue ab = props.get("agentbox");
        if (ab == null || ab == JsonValue.NULL) {
            return Map.of();
        }
        if (!(ab instanceof JsonObject agentbox)) {
            throw invalid("forwardedProps.agentbox", "must be an object");
        }
        JsonValue s = agentbox.get("secrets");
        if (s == null || s == JsonValue.NULL) {
            return Map.of();
        }
        if (!(s instanceof JsonObject secrets)) {
            throw invalid(
                    "forwardedProps.agentbox.secrets", "must be an object of names to strings");
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : secrets.entrySet()) {
            String field = "forwardedProps.agentbox.secrets";
            if (!ENV_NAME.matcher(e.getKey()).matches()) {
                // The name only: a value is never echoed.
                throw invalid(field, "has an invalid variable name \"" + e.getKey() + "\"");
            }
            if (!(e.getValue() instanceof JsonString v) || v.getString().indexOf('\0') >= 0) {
                throw invalid(field + "." + e.getKey(), "must be a string without NUL");
            }
            result.put(e.getKey(), v.getString());
        }
        return Map.copyOf(result);
    }
}
