package dev.agentbox.run;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.acp.AcpInbox;
import dev.agentbox.run.harness.AcpPlan;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.tool.ApprovalRules;
import dev.agentbox.tool.bridge.Mailbox;
import dev.agentbox.tool.bridge.ToolBridge;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The start of a driven run, before its journal is read: the opening chunks, the sandbox, then the
 * agent — started journaled by a first driver, already running for a successor, which waits for its
 * journal to appear. Where the sandbox's egress refusals stand is read on a thread of its own while
 * the rest goes on, and waited for before the agent starts ({@link RunEgressDenials#startReading}).
 * A sandbox that only has to be opened (no spec to ensure) is opened before the driver's claim
 * ({@link #prepare}), so that this read overlaps the claim and the opening chunks; the chunks a
 * client sees keep their order.
 *
 * <p>Invariant: when {@link #open} returns no handle, the run has already been ended through {@link
 * RunEnd}; a cancel seen before the agent starts ends the run without starting it.
 */
final class AgentLaunch {

    /** The driver's logger: one run's lines read as one story. */
    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());

    private final RunContext ctx;
    private final RunRecordView run;
    private final DriverWriter writer;
    private final DriverSignals signals;
    private final RunSandbox sandbox;
    private final RunEnd end;

    /** The first driver's agent; null for a successor, whose agent already runs. */
    private final AgentInvocation agent;

    /**
     * The first driver's bridge token for a run with a tool bridge ({@link RunBridge}); null
     * otherwise. Only the agent's command line gets it.
     */
    private final String bridgeToken;

    private final boolean takeover;
    private final boolean finalizing;

    /** The run's egress refusals from before its agent started; null until then, or none. */
    private RunEgressDenials refusals;

    /** {@link #prepare} opened the sandbox (or failed to: {@link #notPrepared}). */
    private boolean prepared;

    private SandboxHandle opened;
    private RuntimeException notPrepared;

    /** The read of where the egress refusals stand, once started. */
    private RunEgressDenials.Reading reading;

    AgentLaunch(
            RunContext ctx,
            RunRecordView run,
            DriverWriter writer,
            DriverSignals signals,
            RunSandbox sandbox,
            RunEnd end,
            AgentInvocation agent,
            String bridgeToken,
            boolean takeover,
            boolean finalizing) {
        this.bridgeToken = bridgeToken;
        this.ctx = ctx;
        this.run = run;
        this.writer = writer;
        this.signals = signals;
        this.sandbox = sandbox;
        this.end = end;
        this.agent = agent;
        this.takeover = takeover;
        this.finalizing = finalizing;
    }

    /**
     * A first driver's head start, before its lease and claim (database round trips): a recorded
     * sandbox (nothing to ensure, so opening it is quick) is opened and where its egress refusals
     * stand is read on a thread of its own, so that this read overlaps the claim and the opening
     * chunks instead of delaying the agent. A failure to open is reported by {@link #open}, after
     * the opening chunks, as it would have been. Nothing for a successor, a finalizer, or a sandbox
     * to ensure (which may take seconds, and is done only once claimed).
     */
    void prepare(String label) {
        if (takeover || finalizing || sandbox.ensures()) {
            return;
        }
        prepared = true;
        try {
            opened = sandbox.open();
            reading = RunEgressDenials.startReading(label, opened);
        } catch (RuntimeException e) {
            notPrepared = e;
        }
    }

    /**
     * The sandbox's handle with the agent running in it, or empty when the run has ended. {@code
     * beforeAgent} gets the open sandbox once the run goes on in it: before a first driver starts
     * the agent (so the run's tool bridge already answers the agent's first MCP request), after a
     * successor found the journal.
     */
    Optional<SandboxHandle> open(
            String label,
            HarnessTranslator translator,
            ChunkFactory chunks,
            java.util.function.Consumer<SandboxHandle> beforeAgent) {
        // RUN_STARTED first: AG-UI clients refuse a stream that starts with anything else. A
        // successor replays RUN_STARTED (alignment matches it with the stored one) and writes no
        // run.accepted; alignment passes over a stored run.accepted wherever it stands, so a log
        // written in the earlier order (run.accepted first) still aligns.
        List<JsonObject> opening = new ArrayList<>(translator.onStart());
        if (!takeover) {
            opening.add(ServiceChunks.runAccepted(chunks));
        }
        SandboxHandle handle = opened;
        RuntimeException notOpened = notPrepared;
        writer.emit(opening);
        if (!prepared) {
            try {
                handle = sandbox.open();
            } catch (ProblemException e) {
                notOpened = e;
            }
        }
        if (notOpened instanceof ProblemException e) {
            end.sandboxNotOpened(label, chunks, e);
            return Optional.empty();
        }
        if (notOpened != null) {
            throw notOpened;
        }
        if (!finalizing && reading == null) {
            // Where the sandbox's refusals stand before the agent starts: its first request may
            // be refused at once, and a position read after that would pass over the refusal.
            reading = RunEgressDenials.startReading(label, handle);
        }
        if (!finalizing && signals.cancelled()) {
            end.cancelled(label, chunks);
            return Optional.empty();
        }
        if (takeover) {
            if (reading != null) {
                refusals = reading.get().orElse(null);
            }
            // (A finalizer skips the wait: the reaper's probe has just read the journal's
            // sentinel.)
            if (!finalizing && !journalAppears(handle)) {
                end.journalNeverAppeared(label);
                return Optional.empty();
            }
            beforeAgent.accept(handle);
        } else {
            RunEgressDenials.Reading before = reading;
            AgentInvocation invocation = withBridge(handle);
            beforeAgent.accept(handle);
            ctx.launcher()
                    .start(
                            handle,
                            run.journal(),
                            invocation,
                            // The prompt is written meanwhile; the agent waits for the read.
                            () -> refusals = before == null ? null : before.get().orElse(null));
            LOG.info(label + ": agent started in " + handle.id());
        }
        return Optional.of(handle);
    }

    /**
     * The agent, with its run's MCP server on its command line when the run has a tool bridge; the
     * mailbox is made first, so the agent's relay finds it (docs/sandbox-channel.md).
     */
    private AgentInvocation withBridge(SandboxHandle handle) {
        if (run.harness() == Harness.ACP) {
            // The agent's stdin is the feeder on its inbox (the token there for its MCP server).
            boolean mcp = AcpPlan.ofBridge(run.bridge()).mcp();
            if (mcp) {
                ToolBridge.prepare(handle.fs(), Mailbox.of(handle.journalDirectory(), run.runId()));
            }
            return AcpInbox.of(handle, run.runId()).launch(agent, mcp ? bridgeToken : null);
        }
        if (run.bridge().isEmpty() || bridgeToken == null) {
            return agent;
        }
        Mailbox mailbox = Mailbox.of(handle.journalDirectory(), run.runId());
        ToolBridge.prepare(handle.fs(), mailbox);
        return RunBridge.invocation(
                run.harness(),
                ApprovalRules.fromJson(run.approvals()),
                agent,
                mailbox.dir(),
                bridgeToken);
    }

    /**
     * The egress refusals of the run from before its agent started ({@link RunEgressDenials}), once
     * {@link #open} returned a handle; null for a finalizer and for a sandbox without egress.
     */
    RunEgressDenials refusals() {
        return refusals;
    }

    private boolean journalAppears(SandboxHandle handle) {
        long deadline = System.nanoTime() + ctx.takeover().journalWait().toNanos();
        while (System.nanoTime() < deadline) {
            if (ctx.launcher().exists(handle, run.runId())) {
                return true;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return ctx.launcher().exists(handle, run.runId());
    }
}
