package dev.agentbox.sandbox.spi;

/** Commands in a sandbox: blocking {@link #exec} and background {@link #spawn}. */
public interface SandboxProcesses {

    /**
     * Runs {@code sh -c command} to completion. A non-zero exit is data, not an error. With a
     * timeout, the command and everything it started are killed when it expires and the result has
     * exit code {@link ExecResult#TIMED_OUT} with a note on stderr.
     */
    ExecResult exec(String command, ProcessOptions options);

    default ExecResult exec(String command) {
        return exec(command, ProcessOptions.defaults());
    }

    /** Starts {@code sh -c command} in the background; output streams as it arrives. */
    SandboxProcess spawn(String command, ProcessOptions options);

    default SandboxProcess spawn(String command) {
        return spawn(command, ProcessOptions.defaults());
    }
}
