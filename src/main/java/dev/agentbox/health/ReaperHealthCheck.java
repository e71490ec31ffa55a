package dev.agentbox.health;

import dev.agentbox.reaper.ReaperService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness: DOWN when the reaper's timer has not completed a sweep for three intervals (a wedged
 * timer would otherwise leak every detached run and sandbox silently).
 */
@Liveness
@ApplicationScoped
public class ReaperHealthCheck implements HealthCheck {

    @Inject ReaperService reaper;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b =
                HealthCheckResponse.named("reaper").withData("enabled", reaper.enabled());
        reaper.lastCompletedAt().ifPresent(t -> b.withData("lastSweepAt", t.toString()));
        reaper.nextDueAt().ifPresent(t -> b.withData("nextDueAt", t.toString()));
        return b.status(reaper.fresh()).build();
    }
}
