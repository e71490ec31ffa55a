package dev.agentbox.health;

import dev.agentbox.sandbox.kubernetes.KubernetesSandboxProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * When the Kubernetes provider is enabled: ready only while the API server answers a list of the
 * sandbox namespace's pods (with the provider's own permissions). Disabled, it is up and never
 * reaches for a cluster.
 */
@Readiness
@ApplicationScoped
public class KubernetesProviderHealthCheck implements HealthCheck {

    @Inject KubernetesSandboxProvider kubernetes;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b =
                HealthCheckResponse.named("provider-kubernetes")
                        .withData("enabled", kubernetes.enabled());
        if (!kubernetes.enabled()) {
            return b.up().build();
        }
        return b.withData("namespace", kubernetes.settings().namespace())
                .status(kubernetes.available())
                .build();
    }
}
