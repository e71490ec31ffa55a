package dev.agentbox.sandbox;

/** Outcome of a blocking command: both streams decoded as UTF-8 (never mixed), and the real exit code. */
public record ExecResult(String stdout, String stderr, int exitCode) {

    /** Exit code reported when {@link ProcessOptions#timeout()} expired (as coreutils {@code timeout}). */
    public static final int TIMED_OUT = 124;
}
