package dev.agentbox.sandbox;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Runs {@link SandboxService#expireIdle} every {@code agentbox.sandbox.idle-check-ms}
 * (0 disables it). Safe on many servers at once: each sandbox is expired under its lease.
 */
@ApplicationScoped
public class IdleSandboxExpiry {

    private static final Logger LOG = Logger.getLogger(IdleSandboxExpiry.class.getName());

    @Inject
    SandboxService sandboxes;

    @Resource
    ManagedScheduledExecutorService scheduler;

    @Inject
    @ConfigProperty(name = "agentbox.sandbox.idle-check-ms", defaultValue = "60000")
    long intervalMs;

    private ScheduledFuture<?> task;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        if (intervalMs > 0) {
            task = scheduler.scheduleWithFixedDelay(this::sweep, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        }
    }

    public void sweep() {
        try {
            int n = sandboxes.expireIdle(100);
            if (n > 0) {
                LOG.info("Idle expiry destroyed " + n + " sandbox(es)");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Idle expiry failed: " + e);
        }
    }

    @PreDestroy
    void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
