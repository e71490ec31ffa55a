package dev.agentbox.api;

import dev.agentbox.sandbox.ProcessOptions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Body of {@code POST /sandboxes/{key}/exec} and {@code /processes}. */
public record ExecRequest(String command, String cwd, Map<String, String> env, Long timeoutMs) {

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
