package dev.agentbox.health;

import dev.agentbox.sandbox.local.LocalSandboxProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/** When the local-process provider is enabled: ready only while its root folder is writable. */
@Readiness
@ApplicationScoped
public class LocalProviderHealthCheck implements HealthCheck {

    @Inject LocalSandboxProvider local;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b =
                HealthCheckResponse.named("provider-local").withData("enabled", local.enabled());
        if (!local.enabled()) {
            return b.up().build();
        }
        return b.status(local.available()).build();
    }
}
