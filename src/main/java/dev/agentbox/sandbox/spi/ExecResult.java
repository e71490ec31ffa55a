package dev.agentbox.sandbox.spi;

/**
 * Outcome of a blocking command: both streams decoded as UTF-8 (never mixed), and the real exit
 * code. {@code truncated}: the output reached the provider's cap ({@link
 * SandboxLimits#maxOutputBytes()}), the command was killed there and the streams hold only what
 * came before the cap.
 */
public record ExecResult(String stdout, String stderr, int exitCode, boolean truncated) {

    /**
     * Exit code reported when {@link ProcessOptions#timeout()} expired (as coreutils {@code
     * timeout}).
     */
    public static final int TIMED_OUT = 124;

    public ExecResult(String stdout, String stderr, int exitCode) {
        this(stdout, stderr, exitCode, false);
    }
}
