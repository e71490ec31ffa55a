package dev.agentbox.run;

import dev.agentbox.api.ProblemException;
import dev.agentbox.platform.NodeIdentity;
import dev.agentbox.run.journal.JournalLauncher;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunCreation;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.SandboxService;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import dev.agentbox.platform.lease.Leases;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Durable runs: start (record first, then the driver on a managed executor, so the request
 * returns at once), lookups scoped to the tenant, cancel, and the attach/detach bookkeeping
 * of viewers. Intent never comes from a disconnect alone: a durable run whose last viewer
 * on this server leaves is detached (the agent keeps running); only a non-durable run (or
 * one with {@code detachOnDisconnect=false}) is cancelled by it.
 */
@ApplicationScoped
public class RunService {

    private static final Logger LOG = Logger.getLogger(RunService.class.getName());

    @Inject
    RunStore runs;

    @Inject
    ClaimStore claims;

    @Inject
    EventLog log;

    @Inject
    RunEventHub hub;

    @Inject
    SandboxService sandboxes;

    @Inject
    Clock clock;

    @Inject
    NodeIdentity node;

    /**
     * Drivers and event streams are long-lived loops (minutes): each gets its own managed
     * thread rather than a slot of the shared pool, which grows only slowly and would leave
     * new streams waiting behind old ones.
     */
    @Resource
    ManagedThreadFactory threads;

    @Inject
    Leases leases;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.lease-ttl-ms", defaultValue = "10000")
    long leaseTtlMs;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.lease-renew-ms", defaultValue = "2000")
    long leaseRenewMs;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.fence-quiet-ms", defaultValue = "5000")
    long fenceQuietMs;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.journal-wait-ms", defaultValue = "10000")
    long journalWaitMs;

    @Inject
    @ConfigProperty(name = "agentbox.runs.max-duration-ms", defaultValue = "21600000")
    long defaultMaxDurationMs;

    private RunContext context;
    private final Map<RunRef, RunDriver> drivers = new ConcurrentHashMap<>();
    private final Map<RunRef, AtomicInteger> viewers = new ConcurrentHashMap<>();

    @PostConstruct
    void init() {
        JournalLauncher launcher = new JournalLauncher();
        ReaderFactory readers = (handle, journal, from) -> JournalReader.open(handle, journal, from);
        context = new RunContext(runs, claims, log, hub, sandboxes, launcher, readers, clock, node.id(), leases,
                new RunContext.Takeover(Duration.ofMillis(leaseTtlMs), Duration.ofMillis(leaseRenewMs),
                        Duration.ofMillis(fenceQuietMs), Duration.ofMillis(journalWaitMs)));
    }

    /** What drivers on this server work with; the reaper finalizes runs through it. */
    public RunContext context() {
        return context;
    }

    public RunRecordView start(String tenant, RunRequest request) {
        request.sandboxKey().ifPresent(key -> {
            try {
                sandboxes.find(tenant, key);
            } catch (ProblemException e) {
                throw new ProblemException(404, "not-found", "sandbox.key: no sandbox " + key, Map.of("field", "sandbox.key"), null);
            }
        });
        long maxDuration = request.maxDurationMs().orElse(defaultMaxDurationMs);
        NewRun newRun = new NewRun(tenant, request.runId(), request.threadId(), request.harness(), clock.instant(),
                request.durable(), request.detachOnDisconnect(), request.destroyOnComplete(),
                request.command(), request.prompt(), request.sandboxKey(), NewRun.randomNonce(),
                maxDuration > 0 ? Optional.of(maxDuration) : Optional.empty());
        RunRecordView record = RunCreation.create(runs, newRun).orElseThrow(() -> new ProblemException(409, "run-exists",
                "runId " + request.runId() + " is already used by this tenant (journals are append-only; pick a new runId)",
                Map.of("runId", request.runId()), null));
        launch(new RunDriver(context, record, request.sandboxSpec(), request.agentInvocation()));
        LOG.info("run " + record.runId() + ": accepted (" + record.harness().wireName() + ", thread " + record.threadId() + ")");
        return record;
    }

    /** On shutdown, drivers leave their runs to a successor instead of failing them. */
    @PreDestroy
    void stop() {
        stopping = true;
        drivers.values().forEach(RunDriver::leave);
    }

    private volatile boolean stopping;

    private boolean launch(RunDriver driver) {
        if (drivers.putIfAbsent(driver.ref(), driver) != null) {
            return false;
        }
        threads.newThread(() -> {
            try {
                driver.run();
            } finally {
                drivers.remove(driver.ref(), driver);
            }
        }).start();
        return true;
    }

    /**
     * Attach drives: a non-terminal run that no live driver holds (its lease expired — its
     * server died or stalled) is taken over by a successor on this server. Cheap to call
     * often: it reads the lease row and starts at most one successor per run per server; a
     * successor on another server loses the lease and does nothing.
     */
    public void maybeTakeOver(RunRecordView run) {
        if (drivers.containsKey(run.ref()) || leases.held("run-driver:" + run.runId())) {
            return;
        }
        // A run younger than one lease TTL may simply not have taken its lease yet: a
        // successor racing its first driver would leave nobody to start the agent.
        runs.findById(run.ref()).filter(r -> !r.isTerminal())
                .filter(r -> r.startedAt().plusMillis(leaseTtlMs).isBefore(clock.instant()))
                .ifPresent(fresh -> {
            if (launch(RunDriver.successor(context, fresh))) {
                LOG.info("run " + run.runId() + ": no live driver; taking over on " + node.id());
            }
        });
    }

    public RunRecordView get(String tenant, String runId) {
        return runs.find(tenant, runId).orElseThrow(() -> ProblemException.notFound("No run " + runId));
    }

    public List<RunRecordView> list(String tenant, Optional<String> threadId, Optional<RunStatus> status) {
        return runs.list(tenant, threadId, status, 200);
    }

    public RunRecordView activeRun(String tenant, String threadId) {
        return runs.findActiveRun(tenant, threadId)
                .orElseThrow(() -> ProblemException.notFound("No active run in thread " + threadId));
    }

    /** Records the cancel durably (any server's driver sees it) and aborts this server's driver at once. */
    public RunRecordView cancel(String tenant, String runId) {
        RunRecordView run = get(tenant, runId);
        if (!run.isTerminal()) {
            runs.setCancelRequested(run.ref(), Optional.of(true));
            RunDriver local = drivers.get(run.ref());
            if (local != null) {
                local.abort();
            }
            LOG.info("run " + runId + ": cancel requested");
        }
        return get(tenant, runId);
    }

    public RunEventStream stream() {
        return new RunEventStream(log, runs, hub, () -> stopping);
    }

    /** A viewer attached: an attach clears {@code detachedSince} (never {@code cancelRequested}). */
    public void viewerAttached(RunRecordView run) {
        viewers.computeIfAbsent(run.ref(), k -> new AtomicInteger()).incrementAndGet();
        if (run.detachedSince().isPresent() && !run.isTerminal()) {
            runs.setDetachedSince(run.ref(), Optional.empty());
        }
        if (!run.isTerminal()) {
            maybeTakeOver(run);
        }
    }

    /** A viewer left before the end of the run: the last one detaches a durable run or cancels a non-durable one. */
    public void viewerLeft(RunRecordView run, boolean runEnded) {
        AtomicInteger count = viewers.computeIfAbsent(run.ref(), k -> new AtomicInteger());
        if (count.decrementAndGet() > 0 || runEnded) {
            viewers.remove(run.ref(), count);
            return;
        }
        viewers.remove(run.ref(), count);
        RunRecordView current = runs.findById(run.ref()).orElse(run);
        if (current.isTerminal()) {
            return;
        }
        if (current.durable() && current.detachOnDisconnect()) {
            runs.setDetachedSince(run.ref(), Optional.of(clock.instant()));
            LOG.info("run " + run.runId() + ": viewer left, detached (the agent keeps running)");
        } else {
            LOG.info("run " + run.runId() + ": viewer left a non-durable run, cancelling");
            cancel(run.tenant(), run.runId());
        }
    }

    public List<dev.agentbox.run.store.LoggedChunk> snapshot(RunRecordView run, int limit) {
        return log.read(run.ref(), 0, limit);
    }
}
