package dev.agentbox.health;

import dev.agentbox.api.TenantTokens;
import dev.agentbox.platform.Installation;
import dev.agentbox.platform.InstallationService;
import dev.agentbox.platform.NodeIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
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

    @Inject TenantTokens tokens;

    @Inject InstallationService installation;

    @Inject NodeIdentity node;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b =
                HealthCheckResponse.named("agentbox")
                        .withData("node", node.id())
                        .withData("auth", tokens.devMode() ? "disabled" : "enabled");
        Optional<Installation> current = installation.current();
        current.ifPresent(i -> b.withData("installationId", i.installationId()));
        return b.status(current.isPresent()).build();
    }
}
