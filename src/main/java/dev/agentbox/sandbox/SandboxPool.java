package dev.agentbox.sandbox;

import dev.agentbox.platform.Installation;
import dev.agentbox.platform.InstallationService;
import dev.agentbox.platform.NodeIdentity;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.sandbox.pool.PoolMetrics;
import dev.agentbox.sandbox.pool.PoolSettings;
import dev.agentbox.sandbox.pool.PoolUpkeep;
import dev.agentbox.sandbox.pool.WarmPool;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * This server's view of the warm pool (hand-out {@link WarmPool}, upkeep {@link PoolUpkeep}): built
 * from configuration, refilled by {@link PoolTimer} and shortly after each claim, drained when the
 * server stops. One maintenance pass (tidy, then refill) runs at a time on this server; a pass that
 * finds one running is skipped.
 */
@ApplicationScoped
public class SandboxPool {

    private static final Logger LOG = Logger.getLogger(SandboxPool.class.getName());

    @Inject SandboxProviders providers;

    @Inject PoolStore store;

    @Inject SandboxInstanceStore instances;

    @Inject Leases leases;

    @Inject Clock clock;

    @Inject NodeIdentity node;

    @Inject InstallationService installation;

    @Inject MetricRegistry metrics;

    @Inject Config config;

    @Resource ManagedScheduledExecutorService scheduler;

    /**
     * How long after an ensure's answer its claimed pool row is dropped: past the answer and the
     * client's first command, which the commit would otherwise compete with for the CPUs.
     */
    static final Duration AFTER_ANSWER = Duration.ofMillis(250);

    private final ReentrantLock maintaining = new ReentrantLock();

    private volatile WarmPool pool;

    private volatile PoolUpkeep upkeep;

    private volatile boolean stopping;

    @PostConstruct
    void init() {
        PoolSettings settings = PoolSettings.fromConfig(config);
        PoolMetrics counted = new PoolMetrics(metrics);
        pool = new WarmPool(providers::find, store, clock, settings, counted);
        upkeep =
                new PoolUpkeep(
                        providers::find,
                        store,
                        instances,
                        leases,
                        clock,
                        node.id(),
                        () -> installation.current().map(Installation::installationId),
                        settings,
                        counted);
        if (settings.enabled()) {
            LOG.info(
                    "pool: keeping "
                            + settings.size()
                            + " ready sandbox(es) of "
                            + settings.entries()
                            + ", retired after "
                            + settings.maxAge());
        } else {
            LOG.info("pool: off (" + PoolSettings.SIZE + "=" + settings.size() + ")");
        }
    }

    public WarmPool pool() {
        return pool;
    }

    /**
     * Tidies and refills now, unless a pass is already running on this server. With the pool off it
     * still tidies: sandboxes left from when it was on are retired.
     */
    public void maintain() {
        if (stopping || !maintaining.tryLock()) {
            return;
        }
        try {
            upkeep.tidy();
            upkeep.refill();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool: maintenance failed", e);
        } finally {
            maintaining.unlock();
        }
    }

    /**
     * Ends a claim whose sandbox is recorded, after the ensure has answered: the pool row is
     * dropped {@link #AFTER_ANSWER} later (a row left by a crash in between is settled by tidy,
     * which finds the sandbox recorded), and the refill starts {@link
     * PoolSettings#refillAfterClaim()} later, so that creating the replacement does not slow the
     * new sandbox's first commands.
     */
    public void claimed(WarmPool.Claim claim) {
        try {
            scheduler.schedule(
                    () -> pool.claimed(claim), AFTER_ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            pool.claimed(claim);
        }
        try {
            scheduler.schedule(
                    this::maintain,
                    pool.settings().refillAfterClaim().toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.log(Level.FINE, "pool: refill not scheduled; the timer will", e);
        }
    }

    /**
     * Stops maintenance and destroys the ready sandboxes this server made. Called by {@link
     * PoolTimer}'s stop, while the persistence unit is still open (a CDI bean's own pre-destroy
     * runs after it closed); once only.
     */
    public void stop() {
        if (stopping) {
            return;
        }
        stopping = true;
        if (!pool.settings().enabled()) {
            return;
        }
        boolean quiet = false;
        try {
            // A refill under way would make a sandbox after the drain: wait for it to end.
            quiet = maintaining.tryLock(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            int n = upkeep.drain();
            if (n > 0) {
                LOG.info("pool: destroyed " + n + " ready sandbox(es) of this server on stop");
            }
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "pool: drain on stop failed; the sandboxes stay for other servers or retire by age",
                    e);
        } finally {
            if (quiet) {
                maintaining.unlock();
            }
        }
    }
}
