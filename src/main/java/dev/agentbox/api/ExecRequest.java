package dev.agentbox.api;

import dev.agentbox.sandbox.ProcessOptions;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Body of {@code POST /sandboxes/{key}/exec} and {@code /processes}, read strictly by
 * {@link #parse} (see {@link JsonBodies}): {@code command} a non-blank string, {@code cwd} a
 * string, {@code env} an object of strings with shell names, {@code timeoutMs} a positive
 * integer; nothing else.
 */
public record ExecRequest(String command, String cwd, Map<String, String> env, Long timeoutMs) {

    private static final List<String> MEMBERS = List.of("command", "cwd", "env", "timeoutMs");

    static ExecRequest parse(JsonValue body) {
        if (body == null) {
            throw JsonBodies.invalid("command", "is required");
        }
        JsonObject o = JsonBodies.object(body, MEMBERS);
        return new ExecRequest(JsonBodies.requiredString(o, "command"), JsonBodies.optionalString(o, "cwd").orElse(null),
                JsonBodies.env(o, "env"), JsonBodies.optionalLong(o, "timeoutMs", 1, Long.MAX_VALUE).orElse(null));
    }

    ProcessOptions options(boolean allowTimeout) {
        if (command == null || command.isBlank()) {
            throw new ProblemException(400, "invalid-request", "command is required", Map.of("field", "command"), null);
        }
        if (timeoutMs != null && (!allowTimeout || timeoutMs < 1)) {
            throw new ProblemException(400, "invalid-request",
                    allowTimeout ? "timeoutMs must be positive" : "timeoutMs is not supported for background processes",
                    Map.of("field", "timeoutMs"), null);
        }
        return new ProcessOptions(Optional.ofNullable(cwd), env == null ? Map.of() : env,
                Optional.ofNullable(timeoutMs).map(Duration::ofMillis));
    }
}
