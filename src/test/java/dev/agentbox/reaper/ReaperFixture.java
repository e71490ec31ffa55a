package dev.agentbox.reaper;

import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.TestDatabase;
import dev.agentbox.platform.lease.JpaLeaseStore;
import dev.agentbox.platform.lease.LeaseStore;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.BridgeStarter;
import dev.agentbox.run.ReaderFactory;
import dev.agentbox.run.RunContext;
import dev.agentbox.run.RunDriver;
import dev.agentbox.run.RunEventHub;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.journal.JournalLauncher;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.JpaClaimStore;
import dev.agentbox.run.store.JpaEventLog;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.SandboxProviders;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.JpaSandboxInstanceStore;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import dev.agentbox.testing.SettableClock;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Everything a sweep works with, for real: the JPA stores on a test database, database leases, the
 * Docker provider on the BusyBox image (or another provider given to it), the journal launcher and
 * readers — one "server" per instance ({@link #node}). Time that the reaper judges by (detached
 * TTL, orphan grace) comes from a {@link SettableClock}; leases keep the system clock.
 */
final class ReaperFixture implements AutoCloseable {

    static final String IMAGE = "agentbox/sandbox:busybox";

    /** One per test JVM: containers left by another run on the same engine are never ours. */
    static final String INSTALLATION = "test-installation-" + UUID.randomUUID();

    final TestDatabase db;
    final String node;
    final SettableClock clock = new SettableClock(Instant.now());
    final RunStore runs;
    final ClaimStore claims;
    final EventLog log;
    final SandboxInstanceStore instances;
    final Leases leases;
    final SandboxProvider provider;
    final SandboxService sandboxes;
    final RunContext ctx;
    final String tenant = "tenant-" + UUID.randomUUID();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);

    /**
     * Where a reaper's parallel probes and finalizations run, as the server's managed executor
     * does.
     */
    final java.util.concurrent.ExecutorService workers = Executors.newCachedThreadPool();

    private final List<String> containers = new ArrayList<>();

    ReaperFixture(TestDatabase db, String node) {
        this(db, node, null);
    }

    /**
     * A fixture on {@code shared} (another fixture's provider, or one of another kind: the
     * Kubernetes provider's reaper tests), or on a Docker provider of its own when null.
     */
    ReaperFixture(TestDatabase db, String node, SandboxProvider shared) {
        this.db = db;
        this.node = node;
        runs = db.transactional(RunStore.class, JpaRunStore::new);
        claims = db.transactional(ClaimStore.class, JpaClaimStore::new);
        log = db.transactional(EventLog.class, JpaEventLog::new);
        instances =
                db.transactional(
                        SandboxInstanceStore.class,
                        em -> new JpaSandboxInstanceStore(em, db.dataSource()));
        leases =
                new Leases(
                        db.transactional(LeaseStore.class, JpaLeaseStore::new),
                        Clock.systemUTC(),
                        node,
                        scheduler);
        provider =
                shared != null
                        ? shared
                        : new DockerSandboxProvider(
                                DockerSettings.builder().image(IMAGE).build(),
                                new DaemonThreads("test-reaper"),
                                Clock.systemUTC());
        sandboxes =
                new SandboxService(
                        new SandboxProviders(List.of(provider)), instances, leases, clock);
        ReaderFactory readers =
                (handle, journal, from) -> JournalReader.open(handle, journal, from);
        ctx =
                new RunContext(
                        runs,
                        claims,
                        log,
                        new RunEventHub(),
                        sandboxes,
                        new JournalLauncher(),
                        readers,
                        clock,
                        node,
                        leases,
                        new RunContext.Takeover(
                                Duration.ofSeconds(10),
                                Duration.ofSeconds(2),
                                Duration.ofMillis(200),
                                Duration.ofSeconds(5)),
                        cause -> {},
                        (decision, n) -> {},
                        ended -> {},
                        BridgeStarter.NONE);
    }

    ReaperSettings settings() {
        return new ReaperSettings(
                25, Duration.ofSeconds(30), Duration.ZERO, Duration.ofMinutes(10));
    }

    Reaper reaper(ReaperSettings settings) {
        return reaper(settings, provider);
    }

    /**
     * A reaper whose reclaims and orphan listing go through {@code provider} (e.g. one whose
     * destroy fails).
     */
    Reaper reaper(ReaperSettings settings, SandboxProvider provider) {
        return reaper(runs, settings, provider);
    }

    /** A reaper whose run store is {@code runs} (a wrapper that injects a fault or a race). */
    Reaper reaperOver(RunStore runs, ReaperSettings settings) {
        return reaper(runs, settings, provider);
    }

    /**
     * A reaper whose reclaims go through {@code reclaimInstances} (a wrapper that injects a store
     * fault); its probe and orphan listing use the real store.
     */
    Reaper reaperReclaimingThrough(SandboxInstanceStore reclaimInstances, ReaperSettings settings) {
        return reaper(runs, settings, provider, reclaimInstances);
    }

    private Reaper reaper(RunStore runs, ReaperSettings settings, SandboxProvider provider) {
        return reaper(runs, settings, provider, instances);
    }

    private Reaper reaper(
            RunStore runs,
            ReaperSettings settings,
            SandboxProvider provider,
            SandboxInstanceStore reclaimInstances) {
        RunContext c =
                new RunContext(
                        runs,
                        ctx.claims(),
                        ctx.log(),
                        ctx.hub(),
                        ctx.sandboxes(),
                        ctx.launcher(),
                        ctx.readers(),
                        ctx.clock(),
                        ctx.nodeId(),
                        ctx.leases(),
                        ctx.takeover(),
                        ctx.takeoverCounter(),
                        ctx.egressCounter(),
                        ended -> {},
                        BridgeStarter.NONE);
        Reclaimer reclaimer =
                new Reclaimer(
                        reclaimInstances,
                        name ->
                                name.equals(provider.name())
                                        ? Optional.of(provider)
                                        : Optional.empty(),
                        runs,
                        leases);
        RunExitProbe probe =
                new RunExitProbe(
                        instances,
                        name ->
                                name.equals(provider.name())
                                        ? Optional.of(provider)
                                        : Optional.empty(),
                        workers,
                        settings.parallelism());
        OrphanCollector orphans =
                new OrphanCollector(
                        instances,
                        () -> List.of(provider),
                        leases,
                        clock,
                        settings.orphanGrace(),
                        () -> Optional.of(INSTALLATION));
        return new Reaper(c, probe, reclaimer, orphans, settings, workers);
    }

    /**
     * A recorded sandbox of this fixture's tenant: a BusyBox container plus its instance record.
     */
    Box sandbox() {
        return sandbox(INSTALLATION);
    }

    /** Like {@link #sandbox()}, with the container labelled as {@code installation}'s. */
    Box sandbox(String installation) {
        String key =
                UUID.randomUUID().toString().replace("-", "")
                        + UUID.randomUUID().toString().replace("-", "");
        SandboxHandle handle =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withKey(key, tenant)
                                .withInstallation(installation));
        containers.add(handle.id());
        instances.upsert(
                new SandboxInstance(
                        key,
                        tenant,
                        provider.name(),
                        handle.id(),
                        null,
                        clock.instant(),
                        3_600_000));
        return new Box(key, handle);
    }

    record Box(String key, SandboxHandle handle) {}

    /**
     * A run on {@code box} whose first driver forwarded two lines and then left without a terminal
     * write, as a driver whose server goes away; the agent then waits for the file {@code gate}
     * before it prints line-3 and line-4 and exits. Not detached yet.
     */
    RunRecordView runLeftByItsDriverAfterTwoLines(Box box, String runId, String gate)
            throws InterruptedException {
        RunRecordView run = record(box, runId, Optional.empty());
        RunDriver first =
                new RunDriver(
                        ctx,
                        run,
                        Optional.empty(),
                        AgentInvocation.of(
                                "echo line-1; echo line-2; while [ ! -f "
                                        + gate
                                        + " ]; do sleep 0.05; done; echo line-3; echo line-4"));
        Thread driving = new Thread(first);
        driving.start();
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () ->
                                chunkJson(run).stream().filter(c -> c.contains("line-2")).count()
                                        == 1);
        first.leave();
        driving.join(10_000);
        return run;
    }

    /** A run bound to {@code box} whose agent runs {@code command} journaled; not detached yet. */
    RunRecordView run(Box box, String command) {
        return run(box, "reap-" + UUID.randomUUID(), command);
    }

    /** Like {@link #run(Box, String)}, with a runId chosen by the caller. */
    RunRecordView run(Box box, String runId, String command) {
        RunRecordView run = record(box, runId, Optional.of(command));
        ctx.launcher().start(box.handle(), run.journal(), command);
        awaitLaunched(run);
        return run;
    }

    /** The run's record, bound to {@code box}, detachable, of the command harness, started now. */
    private RunRecordView record(Box box, String runId, Optional<String> command) {
        return record(box, runId, command, clock.instant(), Optional.empty());
    }

    /**
     * The one place a run record is made: bound to {@code box}, detachable, of the command harness,
     * started at {@code startedAt}, bounded by {@code maxDurationMs} when given.
     */
    private RunRecordView record(
            Box box,
            String runId,
            Optional<String> command,
            Instant startedAt,
            Optional<Long> maxDurationMs) {
        return runs.create(
                        new NewRun(
                                tenant,
                                runId,
                                "thread-" + runId,
                                Harness.COMMAND,
                                startedAt,
                                true,
                                true,
                                false,
                                command,
                                Optional.empty(),
                                Optional.of(box.key()),
                                NewRun.randomNonce(),
                                maxDurationMs,
                                false,
                                JsonValue.EMPTY_JSON_ARRAY,
                                Optional.empty()))
                .orElseThrow();
    }

    /**
     * Waits until the probe can tell the run's agent is producing or has finished. The launch
     * returns before the agent's journal is there; a sweep right after it would, on a busy machine,
     * find nothing to tell by and say unknown.
     */
    private void awaitLaunched(RunRecordView run) {
        RunExitProbe probe = new RunExitProbe(instances, n -> Optional.of(provider));
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            RunExitProbe.Probe p = probe.probe(List.of(fresh(run))).get(run.ref());
                            return p instanceof RunExitProbe.Producing
                                    || p instanceof RunExitProbe.Finished;
                        });
    }

    /**
     * Like {@link #run(Box, String)}, for a run started {@code age} ago with a {@code maxDuration}
     * bound.
     */
    RunRecordView runStartedAgo(Box box, String command, Duration age, Duration maxDuration) {
        RunRecordView run = recordStartedAgo(box, command, age, maxDuration);
        ctx.launcher().start(box.handle(), run.journal(), command);
        return run;
    }

    /** The record of such a run only: no agent started yet. */
    RunRecordView recordStartedAgo(Box box, String command, Duration age, Duration maxDuration) {
        return record(
                box,
                "reap-" + UUID.randomUUID(),
                Optional.of(command),
                clock.instant().minus(age),
                Optional.of(maxDuration.toMillis()));
    }

    /** Marks the run detached at {@code since} and returns the fresh record. */
    RunRecordView detach(RunRecordView run, Instant since) {
        runs.setDetachedSince(run.ref(), Optional.of(since));
        return fresh(run);
    }

    RunRecordView fresh(RunRecordView run) {
        return runs.findById(run.ref()).orElseThrow();
    }

    /** Waits until the agent's exit sentinel is in its journal. */
    void awaitExit(Box box, RunRecordView run) {
        RunExitProbe probe = new RunExitProbe(instances, n -> Optional.of(provider));
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () ->
                                probe.probe(List.of(fresh(run))).get(run.ref())
                                        instanceof RunExitProbe.Finished);
    }

    List<String> chunkJson(RunRecordView run) {
        return log.read(run.ref(), 0, 10_000).stream().map(LoggedChunk::json).toList();
    }

    List<String> chunkTypes(RunRecordView run) {
        return log.read(run.ref(), 0, 10_000).stream().map(LoggedChunk::type).toList();
    }

    boolean containerExists(String id) {
        return provider.listManaged().stream().anyMatch(s -> s.id().equals(id));
    }

    /** Makes a container labelled like agentbox's, without any record. */
    String unrecordedContainer(String installation) {
        SandboxCreateInput input =
                SandboxCreateInput.defaults().withKey("orphan-" + UUID.randomUUID(), tenant);
        SandboxHandle h =
                provider.create(
                        installation == null ? input : input.withInstallation(installation));
        containers.add(h.id());
        return h.id();
    }

    void track(String containerId) {
        containers.add(containerId);
    }

    Map<String, String> labelsOf(String id) {
        return provider.listManaged().stream()
                .filter(s -> s.id().equals(id))
                .findFirst()
                .orElseThrow()
                .labels();
    }

    @Override
    public void close() {
        for (String id : containers) {
            try {
                provider.destroy(id);
            } catch (RuntimeException ignored) {
                // best effort: the test already failed or destroyed it
            }
        }
        scheduler.shutdownNow();
        workers.shutdownNow();
    }
}
