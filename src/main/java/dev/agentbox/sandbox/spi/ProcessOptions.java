package dev.agentbox.sandbox.spi;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Per-command options: {@code cwd} (relative to the workspace root; default the root), {@code env}
 * merged over the sandbox env, and an optional {@code timeout} (exec only).
 */
public record ProcessOptions(
        Optional<String> cwd, Map<String, String> env, Optional<Duration> timeout) {

    public ProcessOptions {
        cwd = cwd == null ? Optional.empty() : cwd;
        env = env == null ? Map.of() : Map.copyOf(env);
        timeout = timeout == null ? Optional.empty() : timeout;
    }

    public static ProcessOptions defaults() {
        return new ProcessOptions(Optional.empty(), Map.of(), Optional.empty());
    }

    public ProcessOptions withCwd(String c) {
        return new ProcessOptions(Optional.of(c), env, timeout);
    }

    public ProcessOptions withEnv(Map<String, String> e) {
        return new ProcessOptions(cwd, e, timeout);
    }

    public ProcessOptions withTimeout(Duration t) {
        return new ProcessOptions(cwd, env, Optional.of(t));
    }
}
