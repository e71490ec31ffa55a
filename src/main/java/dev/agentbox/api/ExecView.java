package dev.agentbox.api;

/** Result of {@code POST /sandboxes/{key}/exec}: a non-zero exit is data, not an error. */
public record ExecView(int exitCode, String stdout, String stderr) {
}
