package dev.agentbox.sandbox;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
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

/**
 * The pool's clock: a non-persistent interval timer that runs {@link SandboxPool#maintain} every
 * {@code agentbox.pool.refill-interval-ms}, the first time one second after start, also with the
 * pool off (see {@link SandboxPool#maintain}). No transaction: each store call commits on its own,
 * and making sandboxes takes seconds.
 */
@Singleton
@Startup
// Its timers use the database: the schema is applied first (dev.agentbox.platform.schema).
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class PoolTimer {

    private static final Logger LOG = Logger.getLogger(PoolTimer.class.getName());

    @Resource TimerService timers;

    @Inject SandboxPool pool;

    @PostConstruct
    void start() {
        // Also with the pool off: its tidy retires what an earlier configuration left.
        timers.createIntervalTimer(
                1000,
                pool.pool().settings().refillEvery().toMillis(),
                new TimerConfig("sandbox-pool", false));
    }

    /** The server is stopping: no more passes, and this server's ready sandboxes go. */
    @PreDestroy
    void stop() {
        pool.stop();
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void fire(Timer timer) {
        try {
            pool.maintain();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool: timer tick failed", e);
        }
    }
}
