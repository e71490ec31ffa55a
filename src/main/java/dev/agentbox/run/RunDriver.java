package dev.agentbox.run;

import dev.agentbox.platform.Incident;
import dev.agentbox.run.harness.AcpPlan;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunFailure;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import dev.agentbox.sandbox.SandboxSpec;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Drives one run on this server: claims it, makes or opens its sandbox, starts the agent journaled
 * ({@link AgentLaunch}), reads the journal, translates lines to chunks and appends them through the
 * fenced path ({@link JournalPump}), then finishes the record ({@link RunEnd}). This class holds
 * the run's lease and claim around that work and says how it ended.
 *
 * <p>The driver is total: every way a run can go wrong — the agent's non-zero exit, a sandbox
 * killed mid-run, a journal that ends without its sentinel or never starts, a failed setup, a
 * cancel — ends as one terminal chunk plus a terminal record; nothing escapes that leaves a run
 * {@code running}. The one exception is a stale epoch: another driver owns the run, so this one
 * stops writing at once and forever (the latch).
 */
public final class RunDriver implements Runnable {

    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());

    private final RunContext ctx;
    private final RunRecordView run;

    /**
     * The first driver's agent (command and prompt); null for a successor, whose agent already
     * runs.
     */
    private final AgentInvocation agent;

    /** The first driver's bridge token (a run with a tool bridge); null otherwise. */
    private final String bridgeToken;

    private final boolean takeover;

    /** For a successor: why its predecessor is gone; empty for a first driver or a finalizer. */
    private final Optional<TakeoverCause> cause;

    /**
     * For a successor of a driver whose server session ended: that session, whose lease it takes at
     * once and without a quiet window.
     */
    private final OptionalLong goneSession;

    private final Finalizing finalizing;
    private final DriverSignals signals;
    private final DriverWriter writer;
    private final RunSandbox sandbox;
    private final RunEnd end;

    /** How a driver's work ended, for a caller that drove it synchronously (the reaper). */
    public enum Ending {
        /**
         * Another driver holds the run, it is terminal, or (finalizing) a viewer re-attached:
         * nothing written.
         */
        NOT_CLAIMED,
        /** A terminal chunk and record were written by this driver. */
        FINISHED,
        /**
         * Finalizing ran out of its budget: the run was terminalized as failed with an incomplete
         * transcript.
         */
        BUDGET_EXCEEDED,
        /** A successor claimed the run meanwhile: this driver stopped writing. */
        FENCED_OUT,
        /** The server is stopping: the run was left for a successor. */
        LEFT
    }

    /**
     * What {@link #execute()} reports: the ending, and for a finished run its status and the
     * agent's exit code.
     */
    public record Result(Ending ending, Optional<RunStatus> status, Optional<Integer> exitCode) {}

    /**
     * The reaper's mode: finish a run whose journal already holds its exit sentinel, with no quiet
     * window (the driver lease was free and every fenced write compares the epoch under the claim
     * row's lock, so a paused predecessor cannot interleave) and within a budget.
     */
    record Finalizing(long deadlineNanos) {}

    /** The first driver of a new run: writes the agent's prompt, if any, and starts the agent. */
    public RunDriver(
            RunContext ctx,
            RunRecordView run,
            Optional<SandboxSpec> sandboxSpec,
            AgentInvocation agent) {
        this(ctx, run, sandboxSpec, agent, null);
    }

    /**
     * The first driver of a new run with a tool bridge: {@code bridgeToken} is the token whose hash
     * the run stores ({@link RunBridge}); only the agent's command line gets it.
     */
    public RunDriver(
            RunContext ctx,
            RunRecordView run,
            Optional<SandboxSpec> sandboxSpec,
            AgentInvocation agent,
            String bridgeToken) {
        this(
                ctx,
                run,
                sandboxSpec,
                agent,
                bridgeToken,
                false,
                null,
                Optional.empty(),
                OptionalLong.empty());
    }

    /** A successor or a finalizer: no spec (the sandbox is the run's), no agent to start. */
    private RunDriver(
            RunContext ctx,
            RunRecordView run,
            Optional<TakeoverCause> cause,
            OptionalLong goneSession,
            Finalizing finalizing) {
        this(ctx, run, Optional.empty(), null, null, true, finalizing, cause, goneSession);
    }

    private RunDriver(
            RunContext ctx,
            RunRecordView run,
            Optional<SandboxSpec> sandboxSpec,
            AgentInvocation agent,
            String bridgeToken,
            boolean takeover,
            Finalizing finalizing,
            Optional<TakeoverCause> cause,
            OptionalLong goneSession) {
        this.bridgeToken = bridgeToken;
        this.finalizing = finalizing;
        this.cause = cause;
        this.goneSession = goneSession;
        this.ctx = ctx;
        this.run = run;
        this.agent = agent;
        this.takeover = takeover;
        this.signals = new DriverSignals(ctx, run.ref());
        this.writer = new DriverWriter(ctx, run);
        this.sandbox = new RunSandbox(ctx, run, sandboxSpec);
        this.end = new RunEnd(ctx, run, writer, sandbox, finalizing != null);
    }

    /**
     * A successor for a run whose driver's lease is free ({@code cause}: it expired, or its holder
     * released it): it takes the lease, waits for the quiet window, claims, re-reads the journal
     * from byte 0 and appends only what the stored log does not hold yet (the agent is already
     * running).
     */
    public static RunDriver successor(RunContext ctx, RunRecordView run, TakeoverCause cause) {
        return new RunDriver(ctx, run, Optional.of(cause), OptionalLong.empty(), null);
    }

    /**
     * A successor for a run whose driver's server session has ended: it takes the lease from that
     * session at once, expired or not, and claims without a quiet window. The ended session is the
     * evidence that the predecessor writes no more (see {@code ServerSession}); a write of it that
     * was already in flight lands before the claim, and is aligned, or is refused by the epoch.
     */
    public static RunDriver successorOfGoneSession(
            RunContext ctx, RunRecordView run, long goneSession) {
        return new RunDriver(
                ctx,
                run,
                Optional.of(TakeoverCause.SESSION_GONE),
                OptionalLong.of(goneSession),
                null);
    }

    /**
     * A successor that finalizes a detached run whose agent has exited (the reaper's probe saw the
     * sentinel): replay the journal, append the remainder, write the terminal record. It claims
     * only while the run is still detached and not terminal, does not act on a cancel request (the
     * agent is done), leaves the sandbox to the caller, and gives up after {@code budget},
     * terminalizing the run as failed ({@link Ending#BUDGET_EXCEEDED}).
     */
    public static RunDriver finalizer(RunContext ctx, RunRecordView run, Duration budget) {
        return new RunDriver(
                ctx,
                run,
                Optional.empty(),
                OptionalLong.empty(),
                new Finalizing(System.nanoTime() + budget.toNanos()));
    }

    public RunRef ref() {
        return run.ref();
    }

    /** Asks the driver to stop the agent and end the run aborted (in-process half of a cancel). */
    public void abort() {
        // No interrupt: an interrupted JDBC call can break the connection (Derby); the
        // read loop sees the flag within one poll interval.
        signals.requestAbort();
    }

    /**
     * This server is shutting down: stop driving without a terminal write — the agent keeps running
     * in its sandbox and a successor on another server takes the run over. The lease is released on
     * the way out so that can happen at once.
     */
    public void leave() {
        signals.leave();
    }

    @Override
    public void run() {
        execute();
    }

    /** Drives the run on the calling thread and reports how that ended. */
    public Result execute() {
        drive();
        return new Result(writer.ending(), writer.endStatus(), end.exitCode());
    }

    private void drive() {
        String label =
                "run "
                        + run.runId()
                        + (finalizing != null ? " (finalizing)" : takeover ? " (takeover)" : "");
        AgentLaunch launch =
                new AgentLaunch(
                        ctx,
                        run,
                        writer,
                        signals,
                        sandbox,
                        end,
                        agent,
                        bridgeToken,
                        takeover,
                        finalizing != null);
        // Before the lease and the claim (database round trips): a first driver's sandbox is
        // opened and its egress audit read meanwhile, off the agent's way. Unclaimed, the read
        // is dropped.
        launch.prepare(label);
        Optional<RunWriter.Lease> held =
                goneSession.isPresent()
                        ? RunWriter.of(ctx).leaseFromGoneSession(run.ref(), goneSession.getAsLong())
                        : RunWriter.of(ctx).lease(run.ref());
        if (held.isEmpty()) {
            LOG.info(label + ": another live driver holds the run");
            return;
        }
        try (RunWriter.Lease lease = held.get()) {
            // Re-read under the lease: since the probe, a viewer may have re-attached (its
            // server drives the run on) or another writer may have ended it.
            if (finalizing != null && !stillDetached()) {
                LOG.info(label + ": a viewer re-attached or the run ended; not finalizing");
                return;
            }
            if (takeover && finalizing == null && goneSession.isEmpty() && !quiesced(label)) {
                return;
            }
            Optional<RunWriter.Claim> claimed = lease.claim();
            if (claimed.isEmpty()) {
                LOG.info(label + ": not claimed (terminal or unknown)");
                return;
            }
            long epoch = claimed.get().epoch();
            cause.ifPresent(ctx.takeoverCounter());
            Alignment alignment = null;
            if (takeover) {
                // Read after the claim: a predecessor's append either landed before it (and is
                // aligned here) or is refused by the new epoch.
                var stored = ctx.log().fingerprints(run.ref());
                alignment = new Alignment(stored, run.runId(), run.threadId());
                LOG.info(
                        label
                                + ": claimed with epoch "
                                + epoch
                                + cause.map(c -> " (" + c.tag() + ")").orElse("")
                                + "; replaying the journal against "
                                + stored.size()
                                + " stored chunks");
            }
            writer.claimed(claimed.get(), alignment);
            drive(label, launch);
        } catch (StaleEpochException | RunWriter.LeaseLostException e) {
            writer.ending(Ending.FENCED_OUT);
            LOG.warning(
                    label
                            + (e instanceof StaleEpochException
                                    ? ": another driver took over (epoch "
                                    : ": its lease is lost — a renewal failed or this server's"
                                            + " database session ended (epoch ")
                            + writer.epoch()
                            + "); this driver stops writing: "
                            + e.getMessage());
        } catch (AlignmentException e) {
            LOG.severe(label + ": " + e.getMessage());
            writer.failQuietly(label, RunError.of(e.getMessage(), e.code()));
        } catch (RuntimeException | Error e) {
            if (signals.leaving()) {
                writer.ending(Ending.LEFT);
                LOG.info(label + ": left for another server to take over (" + e + ")");
                return;
            }
            // The exception's text (SQL, an engine's response body) stays in the log; the run's
            // error, which the tenant reads, gets only the incident id.
            Incident incident =
                    Incident.log(LOG, Level.SEVERE, label + ": driver failed unexpectedly", e);
            writer.failQuietly(
                    label, RunFailure.INTERNAL_ERROR.error(incident.text("Run driver failed")));
        } finally {
            ctx.hub().driverStopped(run.ref());
        }
    }

    /**
     * Before a successor's first append the stored log must have stopped growing for the quiet
     * window: a log that keeps growing means its driver is alive after all. After six growing
     * probes the successor gives up without writing anything.
     */
    private boolean quiesced(String label) {
        long window = ctx.takeover().fenceQuiet().toMillis();
        long previous = ctx.log().size(run.ref());
        for (int probe = 1; probe <= 6; probe++) {
            try {
                Thread.sleep(window);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            long now = ctx.log().size(run.ref());
            if (now == previous) {
                return true;
            }
            previous = now;
        }
        LOG.warning(
                label
                        + ": the log never quiesced after 6 probes; another driver is alive, not driving");
        return false;
    }

    private boolean stillDetached() {
        return ctx.runs()
                .findById(run.ref())
                .filter(r -> !r.isTerminal() && r.detachedSince().isPresent())
                .isPresent();
    }

    private void drive(String label, AgentLaunch launch) {
        HarnessTranslator translator =
                run.harness()
                        .translator(
                                run.runId(),
                                run.threadId(),
                                ctx.clock()::millis,
                                AcpPlan.ofBridge(run.bridge()));
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
        // The run's tool bridge is served while this driver drives the run (a first start or a
        // takeover; a finalizer's agent is done and calls nothing) and stops when it stops:
        // ended, left, or fenced out. It starts before a first driver's agent does, so the agent's
        // MCP client never waits for it. Calls in flight are abandoned unanswered; the relay waits
        // for the next server's bridge.
        RunBridgeEvents events =
                run.bridge().isPresent() && finalizing == null ? new RunBridgeEvents(chunks) : null;
        AutoCloseable[] bridge = {null};
        try {
            Optional<SandboxHandle> handle =
                    launch.open(
                            label,
                            translator,
                            chunks,
                            h -> {
                                if (events != null) {
                                    try {
                                        bridge[0] = ctx.bridges().start(run, h, events, events);
                                    } catch (RuntimeException e) {
                                        throw new BridgeNotStarted(e);
                                    }
                                }
                            });
            if (handle.isEmpty()) {
                return;
            }
            // A successor (not a finalizer) has just waited for its journal to exist.
            new JournalPump(
                            ctx,
                            run,
                            writer,
                            signals,
                            sandbox,
                            end,
                            finalizing,
                            takeover && finalizing == null,
                            launch.refusals(),
                            events)
                    .pump(label, handle.get(), translator, chunks);
        } catch (BridgeNotStarted e) {
            // A first driver's agent starts after its bridge: only a successor's is running.
            end.bridgeNotStarted(label, chunks, takeover, e.getCause());
        } finally {
            if (bridge[0] != null) {
                try {
                    bridge[0].close();
                } catch (Exception e) {
                    LOG.log(Level.WARNING, label + ": closing the tool bridge failed", e);
                }
            }
        }
    }

    /** The run's tool bridge threw while starting; carries what it threw. */
    private static final class BridgeNotStarted extends RuntimeException {
        BridgeNotStarted(RuntimeException cause) {
            super(cause);
        }

        @Override
        public synchronized RuntimeException getCause() {
            return (RuntimeException) super.getCause();
        }
    }
}
