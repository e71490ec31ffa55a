package dev.agentbox.api;

import dev.agentbox.sandbox.spi.ExecResult;

/**
 * Result of {@code POST /sandboxes/{key}/exec}: a non-zero exit is data, not an error. {@code
 * truncated} is {@code true} when the output reached {@code agentbox.exec.max-output-bytes} (the
 * command was killed there) and absent otherwise.
 */
public record ExecView(int exitCode, String stdout, String stderr, Boolean truncated) {

    public static ExecView of(ExecResult r) {
        return new ExecView(
                r.exitCode(), r.stdout(), r.stderr(), r.truncated() ? Boolean.TRUE : null);
    }
}
