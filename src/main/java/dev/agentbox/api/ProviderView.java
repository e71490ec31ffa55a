package dev.agentbox.api;

import dev.agentbox.sandbox.spi.SandboxCapabilities;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One entry of {@code GET /api/v1/providers}; its OpenAPI schema is {@code Provider} of {@code
 * META-INF/openapi.yaml}.
 */
@Schema(name = "Provider")
public record ProviderView(String name, boolean available, SandboxCapabilities capabilities) {}
