package dev.agentbox.sandbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs {@link SandboxService#expireIdle}; the reaper's timer calls it every {@code
 * agentbox.sandbox.idle-check-ms} (0 disables it). Safe on many servers at once: each sandbox is
 * expired under its lease.
 */
@ApplicationScoped
public class IdleSandboxExpiry {

    private static final Logger LOG = Logger.getLogger(IdleSandboxExpiry.class.getName());

    @Inject SandboxService sandboxes;

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
}
