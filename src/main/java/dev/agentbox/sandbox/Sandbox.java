package dev.agentbox.sandbox;

/** A recorded sandbox together with a live handle to it (commands through the handle see its secrets). */
public record Sandbox(SandboxInstance instance, SandboxHandle handle) {
}
