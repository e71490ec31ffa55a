package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxLimits;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Body of {@code POST /sandboxes/{key}/exec} and {@code /processes}, read strictly by {@link
 * #parse} (see {@link JsonBodies}): {@code command} a non-blank string, {@code cwd} a string,
 * {@code env} an object of strings with shell names, {@code timeoutMs} a positive integer; nothing
 * else.
 */
public record ExecRequest(String command, String cwd, Map<String, String> env, Long timeoutMs) {

    private static final List<String> MEMBERS = List.of("command", "cwd", "env", "timeoutMs");

    static ExecRequest parse(JsonValue body) {
        if (body == null) {
            throw JsonBodies.invalid("command", "is required");
        }
        JsonObject o = JsonBodies.object(body, MEMBERS);
        return new ExecRequest(
                JsonBodies.requiredString(o, "command"),
                JsonBodies.optionalString(o, "cwd").orElse(null),
                JsonBodies.env(o, "env"),
                JsonBodies.optionalLong(o, "timeoutMs", 1, Long.MAX_VALUE).orElse(null));
    }

    /**
     * The options of this request under the server's limits: {@code timeoutMs} must be positive and
     * at most {@code agentbox.exec.max-timeout-ms}; an exec without one gets {@code
     * agentbox.exec.default-timeout-ms}, so no request waits forever.
     */
    ProcessOptions options(boolean allowTimeout) {
        return options(allowTimeout, SandboxLimits.fromConfig(ConfigProvider.getConfig()));
    }

    ProcessOptions options(boolean allowTimeout, SandboxLimits limits) {
        if (command == null || command.isBlank()) {
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    "command is required",
                    Map.of("field", "command"),
                    null);
        }
        if (timeoutMs != null && (!allowTimeout || timeoutMs < 1)) {
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    allowTimeout
                            ? "timeoutMs must be positive"
                            : "timeoutMs is not supported for background processes",
                    Map.of("field", "timeoutMs"),
                    null);
        }
        long max = limits.maxExecTimeout().toMillis();
        if (timeoutMs != null && timeoutMs > max) {
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    "timeoutMs must be at most " + max + " (agentbox.exec.max-timeout-ms)",
                    Map.of("field", "timeoutMs", "maximum", max),
                    null);
        }
        Optional<Duration> timeout =
                allowTimeout
                        ? Optional.of(
                                Duration.ofMillis(
                                        timeoutMs != null
                                                ? timeoutMs
                                                : limits.defaultExecTimeout().toMillis()))
                        : Optional.empty();
        return new ProcessOptions(Optional.ofNullable(cwd), env == null ? Map.of() : env, timeout);
    }
}
