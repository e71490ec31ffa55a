package dev.agentbox.reaper;

import dev.agentbox.interrupt.Interrupts;
import dev.agentbox.platform.Installation;
import dev.agentbox.platform.InstallationService;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.RunService;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.SandboxProviders;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * The reaper on this server: builds the sweep from the server's stores and providers, keeps sweeps
 * single-flight (a timer tick that finds one running is skipped, not queued; an admin request waits
 * for it and then sweeps), remembers the last result for {@code GET /admin/reaper} and liveness,
 * counts outcomes in metrics, expires and cancels interrupts and reclaims idle egress gateways
 * ({@link IdleGatewayCollector}) each sweep, and prunes journals every {@code
 * agentbox.reaper.prune-every} sweeps.
 */
@ApplicationScoped
public class ReaperService {

    private static final Logger LOG = Logger.getLogger(ReaperService.class.getName());

    @Inject RunService runService;

    @Inject RunStore runs;

    @Inject Interrupts interrupts;

    @Inject SandboxInstanceStore instances;

    @Inject PoolStore pool;

    @Inject SandboxProviders providers;

    @Inject InstallationService installation;

    @Inject Leases leases;

    @Inject Clock clock;

    @Inject MetricRegistry metrics;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.enabled")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.interval-ms")
    long intervalMs;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.max-runs")
    int maxRuns;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.run-budget-ms")
    long runBudgetMs;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.detached-ttl-ms")
    long detachedTtlMs;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.orphan-grace-ms")
    long orphanGraceMs;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.prune-every")
    int pruneEvery;

    @Inject
    @ConfigProperty(name = "agentbox.reaper.parallelism")
    int parallelism;

    @Inject
    @ConfigProperty(name = "agentbox.egress.gateway-idle-ms")
    long gatewayIdleMs;

    @Resource ManagedExecutorService executor;

    private final ReentrantLock flight = new ReentrantLock();
    private final ReentrantLock pruning = new ReentrantLock();
    private Reaper reaper;
    private JournalPruner pruner;
    private IdleGatewayCollector idleGateways;
    private volatile SweepResult last;
    private volatile Instant lastCompletedAt;
    private volatile Instant nextDueAt;
    private volatile Instant startedAt;
    private long sweeps;

    @PostConstruct
    void init() {
        ReaperSettings settings =
                new ReaperSettings(
                        maxRuns,
                        Duration.ofMillis(runBudgetMs),
                        Duration.ofMillis(detachedTtlMs),
                        Duration.ofMillis(orphanGraceMs),
                        parallelism);
        Reclaimer reclaimer = new Reclaimer(instances, providers::find, runs, leases);
        RunExitProbe probe =
                new RunExitProbe(instances, providers::find, executor, settings.parallelism());
        OrphanCollector orphans =
                new OrphanCollector(
                                instances,
                                providers::enabled,
                                leases,
                                clock,
                                settings.orphanGrace(),
                                () -> installation.current().map(Installation::installationId))
                        .withPool(pool::exists);
        reaper =
                new Reaper(runService.context(), probe, reclaimer, orphans, settings, executor)
                        .withAdopter(
                                run ->
                                        runService
                                                .adopt(run, "the reaper found no live driver")
                                                .name()
                                                .toLowerCase()
                                                .replace('_', '-'));
        // resume, not SandboxService.open: a prune must not count as use (idle expiry) nor throw
        // for a gone sandbox.
        pruner =
                new JournalPruner(
                        runs,
                        instances,
                        instance ->
                                providers
                                        .find(instance.provider())
                                        .flatMap(p -> p.resume(instance.providerSandboxId())),
                        clock,
                        JournalPruner.DEFAULT_ORPHAN_TTL,
                        JournalPruner.DEFAULT_MAX_DELETES);
        idleGateways =
                new IdleGatewayCollector(
                        providers::enabled,
                        () -> installation.current().map(Installation::installationId),
                        Duration.ofMillis(gatewayIdleMs));
        startedAt = clock.instant();
    }

    /** The timer's entry point: skipped (empty) when a sweep is already running on this server. */
    public Optional<SweepResult> tick() {
        nextDueAt = clock.instant().plusMillis(intervalMs);
        if (!flight.tryLock()) {
            LOG.info("reaper: previous sweep still running; this tick is skipped");
            return Optional.empty();
        }
        try {
            return Optional.of(sweepLocked());
        } finally {
            flight.unlock();
        }
    }

    /** An on-demand sweep: waits for one in flight, then sweeps. Never throws. */
    public SweepResult sweepNow() {
        flight.lock();
        try {
            return sweepLocked();
        } finally {
            flight.unlock();
        }
    }

    private SweepResult sweepLocked() {
        SweepResult result = reaper.sweep();
        count(result);
        last = result;
        lastCompletedAt = clock.instant();
        sweepInterruptsQuietly();
        reclaimIdleGateways();
        if (pruneEvery > 0 && ++sweeps % pruneEvery == 0) {
            pruneQuietly();
        }
        return result;
    }

    /**
     * Interrupts past their expiry become {@code expired} and those of ended runs {@code
     * cancelled}, whichever server sweeps: the waits themselves end at their own poll.
     */
    private void sweepInterruptsQuietly() {
        try {
            int settled = interrupts.sweep(maxRuns * 40);
            if (settled > 0) {
                LOG.info("reaper: " + settled + " interrupt(s) expired or cancelled");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reaper: interrupt sweep failed", e);
        }
    }

    /** Idle egress gateways of this installation, counted in a metric; never throws. */
    private void reclaimIdleGateways() {
        int reclaimed = idleGateways.collect().size();
        try {
            metrics.counter("agentbox.reaper.gateways.reclaimed").inc(reclaimed);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "reaper metrics", e);
        }
    }

    private void pruneQuietly() {
        try {
            prune();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reaper: journal prune failed", e);
        }
    }

    /**
     * Prunes journals of terminal runs in every recorded sandbox (one prune at a time per server).
     * Never throws.
     */
    public PruneResult prune() {
        pruning.lock();
        try {
            PruneResult result = pruner.prune();
            metrics.counter("agentbox.reaper.journals.deleted").inc(result.deleted().size());
            return result;
        } finally {
            pruning.unlock();
        }
    }

    private void count(SweepResult result) {
        try {
            metrics.counter("agentbox.reaper.sweeps").inc();
            result.outcomes()
                    .forEach(
                            (outcome, n) -> {
                                if (n > 0) {
                                    metrics.counter(
                                                    "agentbox.reaper.runs",
                                                    new Tag("outcome", outcome.wireName()))
                                            .inc(n);
                                }
                            });
            long reclaimFailed = result.count(SweepOutcome.RECLAIM_FAILED);
            metrics.counter("agentbox.reaper.reclaim_failed").inc(reclaimFailed);
            metrics.counter("agentbox.reaper.orphans.destroyed")
                    .inc(result.orphans().destroyed().size());
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "reaper metrics", e);
        }
    }

    public boolean enabled() {
        return enabled;
    }

    public long intervalMs() {
        return intervalMs;
    }

    public Optional<SweepResult> last() {
        return Optional.ofNullable(last);
    }

    public Optional<Instant> lastCompletedAt() {
        return Optional.ofNullable(lastCompletedAt);
    }

    /** When the timer fires next; empty when the reaper is disabled. */
    public Optional<Instant> nextDueAt() {
        if (!enabled) {
            return Optional.empty();
        }
        return Optional.of(nextDueAt != null ? nextDueAt : startedAt.plusMillis(intervalMs));
    }

    /**
     * Whether the timer keeps sweeping: a completed sweep (or the start, before the first one)
     * within the last three intervals. Always true when the reaper is disabled.
     */
    public boolean fresh() {
        if (!enabled) {
            return true;
        }
        return fresh(Optional.ofNullable(lastCompletedAt), startedAt, intervalMs, clock.instant());
    }

    /**
     * Fresh while the last completed sweep — or, before the first, the start — is at most three
     * intervals old (inclusive).
     */
    static boolean fresh(
            Optional<Instant> lastCompleted, Instant startedAt, long intervalMs, Instant now) {
        return !lastCompleted.orElse(startedAt).plusMillis(3 * intervalMs).isBefore(now);
    }
}
