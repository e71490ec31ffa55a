package dev.agentbox.api;

import dev.agentbox.platform.body.JsonBody;
import dev.agentbox.platform.body.NoNul;
import dev.agentbox.platform.body.TypeMismatch;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxLimits;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Body of {@code POST /sandboxes/{key}/exec} and {@code /processes}, bound and checked by {@link
 * JsonBody}: {@code command} a non-blank string, {@code cwd} a string, {@code env} an object of
 * strings with shell names, {@code timeoutMs} a positive integer; nothing else, and no NUL in any
 * string. Absent or null members are {@code null} ({@code env}: empty).
 */
public record ExecRequest(
        @NotBlank(message = "is required") @NoNul String command,
        @NoNul String cwd,
        @TypeMismatch(value = "must be an object of strings", elements = "must be a string")
                Map<
                                @Pattern(regexp = ENV_NAME, message = ENV_NAME_MESSAGE) String,
                                @NotNull(message = "must be a string") @NoNul String>
                        env,
        @Min(value = 1, message = "must be between 1 and " + Long.MAX_VALUE) Long timeoutMs) {

    /** A shell variable name: what {@code env} keys and every environment map accept. */
    static final String ENV_NAME = "[A-Za-z_][A-Za-z0-9_]*";

    static final String ENV_NAME_MESSAGE = "names must match " + ENV_NAME;

    /** Keeps nulls in {@code env} for validation to name; absent is empty. */
    public ExecRequest {
        env = env == null ? Map.of() : env;
    }

    static ExecRequest parse(JsonValue body) {
        if (body == null) {
            throw ProblemException.invalidField("command", "is required");
        }
        return JsonBody.read(body, ExecRequest.class);
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
