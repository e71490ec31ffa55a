package dev.agentbox.reaper;

import dev.agentbox.sandbox.IdleSandboxExpiry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The reaper's clock: two non-persistent interval timers, one that sweeps detached runs and orphans
 * every {@code agentbox.reaper.interval-ms} (off with {@code agentbox.reaper.enabled=false}) and
 * one that expires idle sandboxes every {@code agentbox.sandbox.idle-check-ms} (off with 0).
 *
 * <p>Bean-managed concurrency: a tick never waits for a lock (the sweep itself is single-flight and
 * skips an overlapping tick). No transaction: every store call commits on its own, so a long sweep
 * neither holds one transaction open nor times it out.
 */
@Singleton
@Startup
// Its timers use the database: the schema is applied first (dev.agentbox.platform.schema).
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class ReaperTimer {

    private static final Logger LOG = Logger.getLogger(ReaperTimer.class.getName());
    private static final String SWEEP = "reaper-sweep";
    private static final String IDLE = "idle-sandboxes";

    @Resource TimerService timers;

    @Inject ReaperService reaper;

    @Inject IdleSandboxExpiry idle;

    @Inject
    @ConfigProperty(name = "agentbox.sandbox.idle-check-ms")
    long idleCheckMs;

    @PostConstruct
    void start() {
        if (reaper.enabled()) {
            timers.createIntervalTimer(
                    reaper.intervalMs(), reaper.intervalMs(), new TimerConfig(SWEEP, false));
            LOG.info("reaper: sweeping every " + reaper.intervalMs() + " ms");
        } else {
            LOG.info("reaper: disabled (agentbox.reaper.enabled=false)");
        }
        if (idleCheckMs > 0) {
            timers.createIntervalTimer(idleCheckMs, idleCheckMs, new TimerConfig(IDLE, false));
        }
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void fire(Timer timer) {
        try {
            if (SWEEP.equals(timer.getInfo())) {
                reaper.tick();
            } else if (IDLE.equals(timer.getInfo())) {
                idle.sweep();
            }
        } catch (RuntimeException e) {
            // A timer whose timeout throws is retried and may be cancelled; the next tick must
            // come.
            LOG.log(Level.WARNING, "reaper: timer tick failed", e);
        }
    }
}
