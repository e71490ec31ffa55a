package dev.agentbox.run;

import dev.agentbox.platform.LogText;
import dev.agentbox.platform.NodeIdentity;
import dev.agentbox.platform.PageCursor;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.platform.lease.SessionLiveness.GoneSessionLeases;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Quota;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.run.harness.HarnessImages;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.journal.JournalId;
import dev.agentbox.run.journal.JournalLauncher;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.run.journal.JournalReaderOptions;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunCreation;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Durable runs: start (record first, then the driver on a managed executor, so the request returns
 * at once), lookups scoped to the tenant, cancel (which also cancels the run's pending interrupts),
 * and the attach/detach bookkeeping of viewers. The drivers on this server are {@link
 * LocalDrivers}; whether to take over a run nobody drives is {@link Takeovers}; a cancel that no
 * local driver can act on is landed by {@link CancelLanding}. Intent never comes from a disconnect
 * alone: a durable run whose last viewer on this server leaves is detached (the agent keeps
 * running); only a non-durable run (or one with {@code detachOnDisconnect=false}) is cancelled by
 * it.
 */
@ApplicationScoped
public class RunService {

    private static final Logger LOG = Logger.getLogger(RunService.class.getName());

    @Inject RunStore runs;

    @Inject ClaimStore claims;

    @Inject EventLog log;

    @Inject RunEventHub hub;

    @Inject SandboxService sandboxes;

    @Inject Clock clock;

    @Inject NodeIdentity node;

    /** The drivers' threads (see {@link LocalDrivers}). */
    @Resource ManagedThreadFactory threads;

    @Inject Leases leases;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.lease-ttl-ms")
    long leaseTtlMs;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.lease-renew-ms")
    long leaseRenewMs;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.fence-quiet-ms")
    long fenceQuietMs;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.journal-wait-ms")
    long journalWaitMs;

    /**
     * A run's journal read from its start that shows no byte this long after it was opened ends the
     * run {@code journal-stalled}: an agent that never starts is not waited for forever, and one
     * whose CLI starts slowly on a busy engine host is not cut off early.
     */
    @Inject
    @ConfigProperty(name = "agentbox.runs.journal-first-byte-ms")
    long journalFirstByteMs = JournalReaderOptions.FIRST_BYTE_BOUND.toMillis();

    @Inject
    @ConfigProperty(name = "agentbox.runs.max-duration-ms")
    long defaultMaxDurationMs;

    @Inject
    @ConfigProperty(name = "agentbox.runs.max-driven")
    int maxDriven;

    /** How long a cancelled ACP agent gets after {@code session/cancel} (docs/acp.md). */
    @Inject
    @ConfigProperty(name = "agentbox.runs.cancel-grace-ms")
    long acpCancelGraceMs = dev.agentbox.run.harness.AcpPlan.DEFAULT_CANCEL_GRACE_MS;

    @Inject RunViewers viewers;

    @Inject TenantQuotas quotas;

    @Inject MetricRegistry metrics;

    @Inject Config config;

    /** The CLI harnesses' images, read once (defaults outside the server). */
    private HarnessImages harnessImages = HarnessImages.defaults();

    @Inject RunGates interrupts;

    @Inject ToolSecrets toolSecrets;

    /** What runs' HTTP tools are called with ({@code agentbox.tools.http.*}). */
    private dev.agentbox.tool.http.HttpToolClient toolClient =
            new dev.agentbox.tool.http.HttpToolClient(
                    dev.agentbox.tool.http.HttpToolSettings.defaults(), Clock.systemUTC());

    private dev.agentbox.tool.bridge.BridgeLimits bridgeLimits =
            dev.agentbox.tool.bridge.BridgeLimits.defaults();

    private RunContext context;
    private LocalDrivers drivers;
    private Takeovers takeovers;
    private CancelLanding cancels;
    private DriverLiveness liveness;

    @PostConstruct
    void init() {
        if (config != null) {
            harnessImages = HarnessImages.fromConfig(config);
            toolClient =
                    new dev.agentbox.tool.http.HttpToolClient(
                            dev.agentbox.tool.http.HttpToolSettings.fromConfig(config), clock);
            bridgeLimits = dev.agentbox.tool.bridge.BridgeLimits.fromConfig(config);
        }
        JournalLauncher launcher = new JournalLauncher();
        if (journalFirstByteMs <= 0) {
            throw new IllegalStateException(
                    "agentbox.runs.journal-first-byte-ms must be positive, not "
                            + journalFirstByteMs);
        }
        JournalReaderOptions readerOptions =
                JournalReaderOptions.defaults()
                        .withFirstByteBound(Duration.ofMillis(journalFirstByteMs));
        ReaderFactory readers =
                new ReaderFactory() {
                    @Override
                    public JournalReader open(SandboxHandle handle, JournalId journal, long from) {
                        return JournalReader.open(handle, journal, from, readerOptions);
                    }

                    @Override
                    public JournalReader openSeen(
                            SandboxHandle handle, JournalId journal, long from) {
                        return JournalReader.openSeen(handle, journal, from, readerOptions);
                    }
                };
        context =
                new RunContext(
                        runs,
                        claims,
                        log,
                        hub,
                        sandboxes,
                        launcher,
                        readers,
                        clock,
                        node.id(),
                        leases,
                        new RunContext.Takeover(
                                Duration.ofMillis(leaseTtlMs),
                                Duration.ofMillis(leaseRenewMs),
                                Duration.ofMillis(fenceQuietMs),
                                Duration.ofMillis(journalWaitMs)),
                        this::countTakeover,
                        this::countEgress,
                        // A run that ended leaves no call waiting: its pending interrupts end.
                        run -> interrupts.cancel(run),
                        this::startBridge);
        drivers = new LocalDrivers(threads);
        // What operators watch first: how many runs this server drives right now (each holds a
        // thread and a sandbox's journal follow). Null in tests outside the server.
        if (metrics != null) {
            metrics.gauge("agentbox.runs.driving", drivers, LocalDrivers::count);
        }
        takeovers =
                new Takeovers(
                        context,
                        runs,
                        leases,
                        clock,
                        drivers,
                        node.id(),
                        leaseTtlMs,
                        maxDriven,
                        sandboxes::providerEnabledHere);
        cancels = new CancelLanding(context, runs, leases, drivers, node.id(), leaseTtlMs);
        liveness = new DriverLiveness(leases, clock, Duration.ofMillis(leaseTtlMs));
    }

    /**
     * The tool bridge of {@code run} on its sandbox's mailbox: its stored tools, its approval gate
     * reporting into {@code gateEvents}, posts signed with its definition's secret ({@link
     * ToolSecrets}).
     */
    private AutoCloseable startBridge(
            RunRecordView run,
            SandboxHandle handle,
            dev.agentbox.tool.ToolCallEvents calls,
            dev.agentbox.tool.GateEvents gateEvents) {
        var stored = run.bridge().orElseThrow();
        if (run.harness() == dev.agentbox.run.harness.Harness.ACP) {
            return startAcp(run, handle, calls, gateEvents);
        }
        return toolBridge(run, handle, calls, gateEvents);
    }

    /**
     * An {@code acp} run's client ({@link dev.agentbox.run.acp.AcpClient}), asking the run's gate,
     * and its tool bridge when the agent gets the run's MCP server.
     */
    private AutoCloseable startAcp(
            RunRecordView run,
            SandboxHandle handle,
            dev.agentbox.tool.ToolCallEvents calls,
            dev.agentbox.tool.GateEvents gateEvents) {
        var plan = dev.agentbox.run.harness.AcpPlan.ofBridge(run.bridge());
        AutoCloseable tools = plan.mcp() ? toolBridge(run, handle, calls, gateEvents) : null;
        var client =
                dev.agentbox.run.acp.AcpClient.start(
                        handle,
                        run.runId(),
                        plan,
                        interrupts.gate(run, gateEvents),
                        new dev.agentbox.platform.DaemonThreads("acp-" + run.runId()));
        return () -> {
            client.close();
            if (tools != null) {
                tools.close();
            }
        };
    }

    private AutoCloseable toolBridge(
            RunRecordView run,
            SandboxHandle handle,
            dev.agentbox.tool.ToolCallEvents calls,
            dev.agentbox.tool.GateEvents gateEvents) {
        var stored = run.bridge().orElseThrow();
        return dev.agentbox.tool.bridge.ToolBridge.start(
                handle.fs(),
                dev.agentbox.tool.bridge.Mailbox.of(handle.journalDirectory(), run.runId()),
                new dev.agentbox.tool.bridge.ToolBridge.RunTools(
                        run.runId(),
                        RunBridge.tokenSha256(stored),
                        RunBridge.tools(stored),
                        toolSecrets.of(run.tenant(), run.runId()),
                        // The permission prompt tool: Codex has no use for it.
                        run.harness() != dev.agentbox.run.harness.Harness.CODEX
                                && !RunBridge.allAllow(
                                        dev.agentbox.tool.ApprovalRules.fromJson(run.approvals())),
                        RunBridge.clientTools(stored)),
                interrupts.gate(run, gateEvents),
                toolClient,
                bridgeLimits,
                calls,
                interrupts.clientTools(run, gateEvents));
    }

    /** {@code agentbox.runs.takeovers{cause=…}}: successors that claimed their run, by cause. */
    private void countTakeover(TakeoverCause cause) {
        metrics.counter("agentbox.runs.takeovers", new Tag("cause", cause.tag())).inc();
    }

    /** {@code agentbox.egress{decision=…}}: egress refusals the drivers here reported. */
    private void countEgress(String decision, long n) {
        if (metrics != null) {
            metrics.counter("agentbox.egress", new Tag("decision", decision)).inc(n);
        }
    }

    /**
     * A poll of this server's session found run-driver leases held by ended sessions: their runs
     * are taken over at once, whether anybody watches them or not.
     */
    void onGoneSessions(@Observes GoneSessionLeases gone) {
        liveness.sessionsGone(gone.leases().stream().map(l -> l.goneSession()).toList());
        takeovers.adoptGone(gone.leases());
    }

    /** What drivers on this server work with; the reaper finalizes runs through it. */
    public RunContext context() {
        return context;
    }

    public RunRecordView start(String tenant, RunRequest request) {
        return start(tenant, request, request.agentInvocation());
    }

    /**
     * As {@link #start(String, RunRequest)}, running {@code invocation} instead of the request's
     * own (the agent endpoint resumes a CLI session with a command line of its own). Both entry
     * points pass here, so a CLI harness's ensure body that names no image gets its harness's image
     * ({@link HarnessImages}) before anything is stored or ensured.
     */
    public RunRecordView start(String tenant, RunRequest toStart, AgentInvocation invocation) {
        return start(tenant, toStart, invocation, List.of());
    }

    /**
     * As {@link #start(String, RunRequest, AgentInvocation)}, offering the agent {@code tools} (an
     * agent definition's). A {@code claude-code} run with tools, or whose approval rules are not
     * all {@code allow}, gets a tool bridge ({@link RunBridge}), stored with the run.
     */
    public RunRecordView start(
            String tenant,
            RunRequest toStart,
            AgentInvocation invocation,
            List<dev.agentbox.tool.http.HttpTool> tools) {
        return start(tenant, toStart, invocation, tools, List.of());
    }

    /**
     * As {@link #start(String, RunRequest, AgentInvocation, List)}, also offering the AG-UI
     * client's {@code clientTools}: a call of one waits for the client's answer (an interrupt).
     */
    public RunRecordView start(
            String tenant,
            RunRequest toStart,
            AgentInvocation invocation,
            List<dev.agentbox.tool.http.HttpTool> tools,
            List<dev.agentbox.tool.ClientTool> clientTools) {
        RunRequest request = toStart.withHarnessImage(harnessImages, sandboxes.specParser());
        request.sandboxKey()
                .ifPresent(
                        key -> {
                            try {
                                sandboxes.find(tenant, key);
                            } catch (ProblemException e) {
                                throw new ProblemException(
                                        ProblemCode.NOT_FOUND,
                                        "sandbox.key: no sandbox " + key,
                                        Map.of("field", "sandbox.key"),
                                        null);
                            }
                        });
        long maxDuration = request.maxDurationMs().orElse(defaultMaxDurationMs);
        Optional<RunBridge.Planned> bridge =
                RunBridge.plan(
                        request.harness(),
                        tools,
                        clientTools,
                        request.approvals(),
                        request.acp(),
                        request.effectivePermissionMode(),
                        acpCancelGraceMs);
        NewRun newRun =
                new NewRun(
                        tenant,
                        request.runId(),
                        request.threadId(),
                        request.harness(),
                        clock.instant(),
                        request.durable(),
                        request.detachOnDisconnect(),
                        request.destroyOnComplete(),
                        request.command(),
                        request.prompt(),
                        request.sandboxKey(),
                        NewRun.randomNonce(),
                        maxDuration > 0 ? Optional.of(maxDuration) : Optional.empty(),
                        request.fileEvents(),
                        request.approvals().toJson(),
                        bridge.map(RunBridge.Planned::stored));
        RunRecordView record;
        try (Slot slot =
                quotas.reserve(
                        tenant,
                        Quota.CONCURRENT_RUNS,
                        request.runId(),
                        max -> liveRunIds(tenant, max))) {
            record =
                    RunCreation.create(runs, newRun)
                            .orElseThrow(
                                    () ->
                                            new ProblemException(
                                                    ProblemCode.RUN_EXISTS,
                                                    "runId "
                                                            + request.runId()
                                                            + " is already used by this tenant (journals are append-only; pick a new runId)",
                                                    Map.of("runId", request.runId()),
                                                    null));
        }
        drivers.launch(
                new RunDriver(
                        context,
                        record,
                        request.sandboxSpec(),
                        invocation,
                        bridge.map(RunBridge.Planned::token).orElse(null)));
        LOG.info(
                "run "
                        + LogText.quote(record.runId())
                        + ": accepted ("
                        + record.harness().wireName()
                        + ", thread "
                        + LogText.quote(record.threadId())
                        + ")");
        return record;
    }

    /**
     * The runIds of the tenant's non-terminal runs, at most {@code max} of each non-terminal
     * status.
     */
    private Set<String> liveRunIds(String tenant, int max) {
        Set<String> ids = new HashSet<>();
        for (RunStatus status : List.of(RunStatus.RUNNING, RunStatus.INTERRUPTED)) {
            runs.list(tenant, Optional.empty(), Optional.of(status), max)
                    .forEach(r -> ids.add(r.runId()));
        }
        return ids;
    }

    /** On shutdown, drivers leave their runs to a successor instead of failing them. */
    @PreDestroy
    void stop() {
        drivers.leaveAll();
    }

    /** What {@link #adopt} did with a run that may have no live driver. */
    public enum Adoption {
        /** A successor now drives the run on this server. */
        STARTED,
        /** This server already drives it, or a live driver holds its lease. */
        DRIVEN,
        /**
         * This server drives {@code agentbox.runs.max-driven} runs already: left to another server.
         */
        AT_CAPACITY,
        /**
         * Younger than one lease TTL (its first driver may not have taken the lease yet), or
         * terminal.
         */
        NOT_ELIGIBLE
    }

    /**
     * Attach drives: a non-terminal run that no live driver holds (its lease expired — its server
     * died or stalled) is taken over by a successor on this server. Cheap to call often: it reads
     * the lease row and starts at most one successor per run per server; a successor on another
     * server loses the lease and does nothing.
     */
    public void maybeTakeOver(RunRecordView run) {
        adopt(run, "a viewer attached");
    }

    /**
     * Starts a successor for {@code run} on this server if no live driver holds it anywhere, within
     * this server's {@code agentbox.runs.max-driven}. The successor waits for the quiet window,
     * claims, replays the journal with alignment and keeps driving.
     */
    public Adoption adopt(RunRecordView run, String why) {
        return takeovers.adopt(run, why);
    }

    public RunRecordView get(String tenant, String runId) {
        return runs.find(tenant, runId)
                .orElseThrow(() -> ProblemException.notFound("No run " + runId));
    }

    /** {@code run} as the API reports it: see {@link DriverLiveness} for {@code interrupted}. */
    public RunRecordView reported(RunRecordView run) {
        return liveness.reported(run);
    }

    /**
     * The tenant's runs as the API reports them: newest first, after {@code after} when given, at
     * most {@code limit} (capped at one more than {@value #LIST_LIMIT}: a caller asks for one more
     * than a page to learn whether a next page exists). {@code running} and {@code interrupted} are
     * told apart by the driver lease ({@link DriverLiveness}), not by the stored status: either
     * filter reads the stored live runs (at most {@value #LIVE_SCAN} — a tenant's live runs are
     * bounded by its concurrent-runs quota), looks their leases up in one query and keeps those
     * reported with the status asked for. So {@code status=running} lists only runs with a live
     * driver, and {@code status=interrupted} only those without.
     */
    public List<RunRecordView> list(
            String tenant,
            Optional<String> threadId,
            Optional<RunStatus> status,
            Optional<PageCursor> after,
            int limit) {
        int max = Math.min(Math.max(1, limit), LIST_LIMIT + 1);
        if (status.isPresent() && !status.get().isTerminal()) {
            List<RunRecordView> live = new ArrayList<>();
            for (RunStatus stored : List.of(RunStatus.RUNNING, RunStatus.INTERRUPTED)) {
                live.addAll(runs.list(tenant, threadId, Optional.of(stored), after, LIVE_SCAN));
            }
            live.sort(
                    Comparator.comparing(RunRecordView::startedAt)
                            .thenComparing(RunRecordView::runId)
                            .reversed());
            return liveness.reported(live).stream()
                    .filter(r -> r.status() == status.get())
                    .limit(max)
                    .toList();
        }
        return liveness.reported(runs.list(tenant, threadId, status, after, max));
    }

    /** The first page of {@link #list(String, Optional, Optional, Optional, int)}, whole. */
    public List<RunRecordView> list(
            String tenant, Optional<String> threadId, Optional<RunStatus> status) {
        return list(tenant, threadId, status, Optional.empty(), LIST_LIMIT);
    }

    /**
     * The most a list returns (a caller may ask for one more, to learn whether a next page exists).
     */
    public static final int LIST_LIMIT = 200;

    /** The most stored live runs a {@code running}/{@code interrupted} filter reads. */
    static final int LIVE_SCAN = 1000;

    public RunRecordView activeRun(String tenant, String threadId) {
        return runs.findActiveRun(tenant, threadId)
                .map(liveness::reported)
                .orElseThrow(
                        () -> ProblemException.notFound("No active run in thread " + threadId));
    }

    /**
     * Records the cancel durably (any server's driver sees it within a second) and aborts this
     * server's driver at once. When no driver holds the run anywhere (its server died), this server
     * lands the cancel itself, in the background: it waits at most one lease TTL for a lease that
     * is still held to expire, then claims the run, destroys its sandbox and ends it {@code
     * aborted}. The reaper aborts whatever is left (e.g. this server died too).
     */
    public RunRecordView cancel(String tenant, String runId) {
        RunRecordView run = get(tenant, runId);
        if (!run.isTerminal()) {
            runs.setCancelRequested(run.ref(), Optional.of(true));
            LOG.info("run " + LogText.quote(runId) + ": cancel requested");
            // A cancelled run's waiting calls are refused now, not when its driver notices.
            interrupts.cancel(run.ref());
            cancels.land(run);
        }
        return get(tenant, runId);
    }

    public RunEventStream stream() {
        return new RunEventStream(log, runs, hub, drivers::stopping);
    }

    /**
     * A viewer attached: counted here and, for its first viewer on this server, in the cluster-wide
     * viewer rows; an attach clears {@code detachedSince} (never {@code cancelRequested}).
     */
    public void viewerAttached(RunRecordView run) {
        viewers.attached(run.ref());
        if (run.detachedSince().isPresent() && !run.isTerminal()) {
            runs.setDetachedSince(run.ref(), Optional.empty());
        }
        if (!run.isTerminal()) {
            maybeTakeOver(run);
        }
    }

    /**
     * A viewer left before the end of the run. When no viewer of the run remains on ANY server (a
     * client that reconnected through a load balancer to another server still counts), a durable
     * run is detached (the agent keeps running) and a non-durable one is cancelled.
     */
    public void viewerLeft(RunRecordView run, boolean runEnded) {
        if (!viewers.left(run.ref()) || runEnded) {
            return;
        }
        RunRecordView current = runs.findById(run.ref()).orElse(run);
        if (current.isTerminal()) {
            return;
        }
        if (viewers.watchedAnywhere(run.ref())) {
            LOG.info(
                    "run "
                            + LogText.quote(run.runId())
                            + ": viewer left; still watched on another server");
            return;
        }
        if (current.durable() && current.detachOnDisconnect()) {
            runs.setDetachedSince(run.ref(), Optional.of(clock.instant()));
            LOG.info(
                    "run "
                            + LogText.quote(run.runId())
                            + ": last viewer left, detached (the agent keeps running)");
        } else {
            LOG.info(
                    "run "
                            + LogText.quote(run.runId())
                            + ": last viewer left a non-durable run, cancelling");
            cancel(run.tenant(), run.runId());
        }
    }

    public List<LoggedChunk> snapshot(RunRecordView run, int limit) {
        return snapshot(run, 0, limit);
    }

    /**
     * At most {@code limit} chunks of the stored log after sequence {@code afterSeq} (exclusive).
     */
    public List<LoggedChunk> snapshot(RunRecordView run, long afterSeq, int limit) {
        return log.read(run.ref(), afterSeq, limit);
    }
}
