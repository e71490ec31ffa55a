package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.store.SandboxInstance;

/**
 * A recorded sandbox together with a live handle to it (commands through the handle see its
 * secrets).
 */
public record Sandbox(SandboxInstance instance, SandboxHandle handle) {}
