package dev.agentbox.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/** The JAX-RS application: every resource lives under {@code /api/v1}. */
@ApplicationPath("api")
@OpenAPIDefinition(
        info =
                @Info(
                        title = "agentbox",
                        version = "v1",
                        description =
                                "Sandboxed, durable AI coding agent runs. Errors are application/problem+json."),
        security = @SecurityRequirement(name = "bearer"))
@SecurityScheme(securitySchemeName = "bearer", type = SecuritySchemeType.HTTP, scheme = "bearer")
public class AgentboxApplication extends Application {}
