package dev.agentbox.api;

import dev.agentbox.sandbox.spi.SandboxCapabilities;

/** One entry of {@code GET /api/v1/providers}. */
public record ProviderView(String name, boolean available, SandboxCapabilities capabilities) {}
