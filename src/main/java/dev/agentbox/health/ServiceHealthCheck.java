package dev.agentbox.health;

import dev.agentbox.platform.Installation;
import dev.agentbox.platform.InstallationService;
import dev.agentbox.platform.NodeIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.health.Startup;

/**
 * Started and ready once this server knows its database installation. Its data tells an operator
 * which node answered, whether authentication is on, and which database (installation id) the node
 * is using.
 */
@Readiness
@Startup
@ApplicationScoped
public class ServiceHealthCheck implements HealthCheck {

    /**
     * The key the API's bearer authentication reads: only an unset key is dev mode, and a set key
     * that does not parse keeps the server from starting, so being set means authentication is on.
     * Read here, not through the API's {@code TenantTokens}, so that health does not depend on api.
     */
    @Inject
    @ConfigProperty(name = "agentbox.auth.tokens")
    Optional<String> tokens;

    @Inject InstallationService installation;

    @Inject NodeIdentity node;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b =
                HealthCheckResponse.named("agentbox")
                        .withData("node", node.id())
                        .withData("auth", tokens.isPresent() ? "enabled" : "disabled");
        Optional<Installation> current = installation.current();
        current.ifPresent(i -> b.withData("installationId", i.installationId()));
        return b.status(current.isPresent()).build();
    }
}
