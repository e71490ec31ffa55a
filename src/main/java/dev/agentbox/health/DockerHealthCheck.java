package dev.agentbox.health;

import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while the Docker engine answers a ping (bounded by a 3 s timeout), when the docker
 * provider is enabled. A disabled provider does not hold readiness down.
 */
@Readiness
@ApplicationScoped
public class DockerHealthCheck implements HealthCheck {

    @Inject DockerSandboxProvider docker;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b =
                HealthCheckResponse.named("provider-docker").withData("enabled", docker.enabled());
        if (!docker.enabled()) {
            return b.up().build();
        }
        b.withData("host", docker.settings().host()).withData("image", docker.settings().image());
        return b.status(docker.available()).build();
    }
}
