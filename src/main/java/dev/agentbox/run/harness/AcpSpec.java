package dev.agentbox.run.harness;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code acp} member of an {@code acp} run or agent definition: which ACP agent runs in the
 * sandbox and how it is started.
 *
 * <ul>
 *   <li>{@code claude}: {@code claude-code-acp}, Claude Code underneath (the image's own {@code
 *       claude}); {@code IS_SANDBOX=1}, so its {@code bypassPermissions} mode is offered to a root
 *       sandbox user.
 *   <li>{@code codex}: {@code codex-acp}; a sandbox whose environment has {@code OPENAI_BASE_URL}
 *       gets a model provider of that base URL in Codex's configuration ({@code -c
 *       model_providers.agentbox={…}}, the Responses API, the key from {@code OPENAI_API_KEY}), the
 *       only way codex-acp takes one without a login.
 *   <li>{@code gemini}: {@code gemini --acp}, in one process ({@code GEMINI_CLI_NO_RELAUNCH=1}).
 *   <li>{@code custom}: {@code command} with {@code args}, from the sandbox's image.
 * </ul>
 *
 * {@code env} is set for the agent alone. Every value reaches the command line single-quoted
 * ({@link ShellQuote}); names are checked, so nothing in the member is ever shell code.
 *
 * @param agent the agent
 * @param command the command of a {@code custom} agent
 * @param args its arguments
 * @param env variables for the agent's process
 * @param mode the ACP session mode to set, if the run names one
 * @param continueSession the thread's ACP session to continue (set by the agent endpoint, never
 *     read from a request)
 */
public record AcpSpec(
        String agent,
        Optional<String> command,
        List<String> args,
        Map<String, String> env,
        Optional<String> mode,
        Optional<String> continueSession) {

    public static final List<String> AGENTS = List.of("claude", "codex", "gemini", "custom");

    /** {@code codex-acp}, with a provider at {@code $OPENAI_BASE_URL} when the sandbox has one. */
    static final String CODEX_LINE =
            "codex-acp ${OPENAI_BASE_URL:+-c model_provider=agentbox -c"
                    + " \"model_providers.agentbox={name=\\\"agentbox\\\","
                    + "base_url=\\\"$OPENAI_BASE_URL\\\",env_key=\\\"OPENAI_API_KEY\\\","
                    + "wire_api=\\\"responses\\\"}\"}";

    static final int MAX_ARGS = 64;
    static final int MAX_ENV = 64;
    static final int MAX_TEXT = 4096;
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    private static final Pattern MODE = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public AcpSpec {
        args = List.copyOf(args);
        env = Map.copyOf(env);
    }

    /**
     * Reads the member {@code field} ({@code acp}); a bad member is a {@code 400} naming the exact
     * field.
     */
    public static AcpSpec parse(JsonValue value, String field) {
        if (!(value instanceof JsonObject o)) {
            throw invalid(field, "must be an object {\"agent\",…}");
        }
        for (String k : o.keySet()) {
            if (!List.of("agent", "command", "args", "env", "mode").contains(k)) {
                throw invalid(
                        field + "." + k,
                        "is not a member of acp (agent, command, args, env, mode)");
            }
        }
        String agent = string(o, "agent", field).orElse(null);
        if (agent == null || !AGENTS.contains(agent)) {
            throw invalid(field + ".agent", "must be one of " + AGENTS);
        }
        Optional<String> command = string(o, "command", field);
        if (agent.equals("custom") && command.isEmpty()) {
            throw invalid(field + ".command", "is required for a custom agent");
        }
        if (!agent.equals("custom") && (command.isPresent() || o.containsKey("args"))) {
            throw invalid(
                    field + (command.isPresent() ? ".command" : ".args"),
                    "applies only to a custom agent");
        }
        List<String> args = new ArrayList<>();
        if (o.containsKey("args")) {
            if (!(o.get("args") instanceof jakarta.json.JsonArray a) || a.size() > MAX_ARGS) {
                throw invalid(
                        field + ".args", "must be an array of at most " + MAX_ARGS + " strings");
            }
            for (int i = 0; i < a.size(); i++) {
                if (!(a.get(i) instanceof JsonString s) || !text(s.getString())) {
                    throw invalid(
                            field + ".args[" + i + "]",
                            "must be a string without NUL, at most " + MAX_TEXT + " characters");
                }
                args.add(s.getString());
            }
        }
        Map<String, String> env = new LinkedHashMap<>();
        if (o.containsKey("env")) {
            if (!(o.get("env") instanceof JsonObject e) || e.size() > MAX_ENV) {
                throw invalid(
                        field + ".env",
                        "must be an object of at most " + MAX_ENV + " NAME: value strings");
            }
            for (var entry : e.entrySet()) {
                if (!ENV_NAME.matcher(entry.getKey()).matches()) {
                    throw invalid(
                            field + ".env." + entry.getKey(),
                            "is not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
                }
                if (!(entry.getValue() instanceof JsonString s) || !text(s.getString())) {
                    throw invalid(
                            field + ".env." + entry.getKey(),
                            "must be a string without NUL, at most " + MAX_TEXT + " characters");
                }
                env.put(entry.getKey(), s.getString());
            }
        }
        Optional<String> mode = string(o, "mode", field);
        if (mode.isPresent() && !MODE.matcher(mode.get()).matches()) {
            throw invalid(field + ".mode", "must be a mode id of 1-64 characters [A-Za-z0-9_.-]");
        }
        return new AcpSpec(agent, command, args, env, mode, Optional.empty());
    }

    /** This agent continuing the thread's ACP session {@code sessionId}, if any. */
    public AcpSpec continuing(Optional<String> sessionId) {
        return new AcpSpec(agent, command, args, env, mode, sessionId);
    }

    /** The plan stored with a run of this agent. */
    public AcpPlan plan(PermissionMode permissionMode, boolean asks, boolean mcp) {
        return new AcpPlan(agent, mode, permissionMode, asks, mcp, continueSession);
    }

    /** The agent's command line (without its stdin, which the run's feeder gives it). */
    public String commandLine() {
        StringBuilder sb = new StringBuilder();
        env.forEach((k, v) -> sb.append(k).append('=').append(ShellQuote.single(v)).append(' '));
        switch (agent) {
            case "claude" -> sb.append("IS_SANDBOX=1 claude-code-acp");
            case "codex" ->
                    // codex-acp reads a base URL from its configuration only: a sandbox with
                    // OPENAI_BASE_URL gets a provider of its own there (the Responses API, the key
                    // from OPENAI_API_KEY, no login). The variable is expanded in the sandbox,
                    // inside double quotes: never code.
                    sb.append(CODEX_LINE);
            case "gemini" -> sb.append("GEMINI_CLI_NO_RELAUNCH=1 gemini --acp");
            default -> {
                sb.append(ShellQuote.single(command.orElseThrow()));
                args.forEach(a -> sb.append(' ').append(ShellQuote.single(a)));
            }
        }
        return sb.toString();
    }

    public JsonObject toJson() {
        JsonObjectBuilder b = Json.createObjectBuilder().add("agent", agent);
        command.ifPresent(c -> b.add("command", c));
        if (!args.isEmpty()) {
            JsonArrayBuilder a = Json.createArrayBuilder();
            args.forEach(a::add);
            b.add("args", a);
        }
        if (!env.isEmpty()) {
            JsonObjectBuilder e = Json.createObjectBuilder();
            env.forEach(e::add);
            b.add("env", e);
        }
        mode.ifPresent(m -> b.add("mode", m));
        return b.build();
    }

    private static boolean text(String s) {
        return s.length() <= MAX_TEXT && s.indexOf('\0') < 0;
    }

    private static Optional<String> string(JsonObject o, String name, String field) {
        if (!o.containsKey(name)) {
            return Optional.empty();
        }
        if (!(o.get(name) instanceof JsonString s)
                || s.getString().isBlank()
                || !text(s.getString())) {
            throw invalid(
                    field + "." + name,
                    "must be a non-empty string without NUL, at most " + MAX_TEXT + " characters");
        }
        return Optional.of(s.getString());
    }

    private static ProblemException invalid(String field, String problem) {
        return ProblemException.invalidField(field, problem);
    }
}
