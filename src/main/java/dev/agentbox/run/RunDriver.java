package dev.agentbox.run;

import dev.agentbox.platform.Incident;
import dev.agentbox.platform.Redactor;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.ChunkType;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.journal.JournalEndedWithoutSentinelException;
import dev.agentbox.run.journal.JournalLine;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.run.journal.JournalReaderOptions;
import dev.agentbox.run.journal.JournalStalledException;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunFailure;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import dev.agentbox.sandbox.Sandbox;
import dev.agentbox.sandbox.SandboxSecrets;
import dev.agentbox.sandbox.SandboxSpec;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Drives one run on this server: claims it, makes or opens its sandbox, starts the agent journaled,
 * reads the journal, translates lines to chunks and appends them through the fenced path, then
 * finishes the record.
 *
 * <p>The driver is total: every way a run can go wrong — the agent's non-zero exit, a sandbox
 * killed mid-run, a journal that ends without its sentinel or never starts, a failed setup, a
 * cancel — ends as one terminal chunk plus a terminal record; nothing escapes that leaves a run
 * {@code running}. The one exception is a stale epoch: another driver owns the run, so this one
 * stops writing at once and forever (the latch).
 */
public final class RunDriver implements Runnable {

    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());
    private static final Duration POLL = Duration.ofMillis(250);
    private static final long CANCEL_CHECK_MS = 1000;
    static final int STDERR_TAIL = 1000;

    private final RunContext ctx;
    private final RunRecordView run;
    private final Optional<SandboxSpec> sandboxSpec;

    /**
     * The first driver's agent (command and prompt); null for a successor, whose agent already
     * runs.
     */
    private final AgentInvocation agent;

    private final boolean takeover;
    private final Finalizing finalizing;
    private volatile boolean abortRequested;
    private volatile boolean leaving;
    private final DriverWriter writer;
    private Optional<Sandbox> sandbox = Optional.empty();
    private String sandboxKey;
    private Integer exitCode;

    /**
     * The sandbox's secrets, masked in every chunk this driver writes; known once the sandbox is
     * open.
     */
    private Redactor redactor = Redactor.none();

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
    private record Finalizing(long deadlineNanos) {}

    /** The first driver of a new run: writes the agent's prompt, if any, and starts the agent. */
    public RunDriver(
            RunContext ctx,
            RunRecordView run,
            Optional<SandboxSpec> sandboxSpec,
            AgentInvocation agent) {
        this(ctx, run, sandboxSpec, agent, false);
    }

    private RunDriver(
            RunContext ctx,
            RunRecordView run,
            Optional<SandboxSpec> sandboxSpec,
            AgentInvocation agent,
            boolean takeover) {
        this(ctx, run, sandboxSpec, agent, takeover, null);
    }

    private RunDriver(
            RunContext ctx,
            RunRecordView run,
            Optional<SandboxSpec> sandboxSpec,
            AgentInvocation agent,
            boolean takeover,
            Finalizing finalizing) {
        this.finalizing = finalizing;
        this.ctx = ctx;
        this.run = run;
        this.sandboxSpec = sandboxSpec;
        this.agent = agent;
        this.takeover = takeover;
        this.sandboxKey = run.sandboxKey().orElse(null);
        this.writer = new DriverWriter(ctx, run);
    }

    /**
     * A successor for a run whose driver is gone: it re-reads the journal from byte 0 and appends
     * only what the stored log does not hold yet (the agent is already running).
     */
    public static RunDriver successor(RunContext ctx, RunRecordView run) {
        return new RunDriver(ctx, run, Optional.empty(), null, true);
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
                null,
                true,
                new Finalizing(System.nanoTime() + budget.toNanos()));
    }

    public RunRef ref() {
        return run.ref();
    }

    /** Asks the driver to stop the agent and end the run aborted (in-process half of a cancel). */
    public void abort() {
        // No interrupt: an interrupted JDBC call can break the connection (Derby); the
        // read loop sees the flag within one poll interval.
        abortRequested = true;
    }

    /**
     * This server is shutting down: stop driving without a terminal write — the agent keeps running
     * in its sandbox and a successor on another server takes the run over. The lease is released on
     * the way out so that can happen at once.
     */
    public void leave() {
        leaving = true;
    }

    @Override
    public void run() {
        execute();
    }

    /** Drives the run on the calling thread and reports how that ended. */
    public Result execute() {
        drive();
        return new Result(writer.ending(), writer.endStatus(), Optional.ofNullable(exitCode));
    }

    private void drive() {
        String label =
                "run "
                        + run.runId()
                        + (finalizing != null ? " (finalizing)" : takeover ? " (takeover)" : "");
        Optional<RunWriter.Lease> held = RunWriter.of(ctx).lease(run.ref());
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
            if (takeover && finalizing == null && !quiesced(label)) {
                return;
            }
            Optional<RunWriter.Claim> claimed = lease.claim();
            if (claimed.isEmpty()) {
                LOG.info(label + ": not claimed (terminal or unknown)");
                return;
            }
            long epoch = claimed.get().epoch();
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
                                + "; replaying the journal against "
                                + stored.size()
                                + " stored chunks");
            }
            writer.claimed(claimed.get(), alignment);
            drive(label);
        } catch (StaleEpochException | RunWriter.LeaseLostException e) {
            writer.ending(Ending.FENCED_OUT);
            LOG.warning(
                    label
                            + ": another driver took over (epoch "
                            + writer.epoch()
                            + "); this driver stops writing: "
                            + e.getMessage());
        } catch (AlignmentException e) {
            LOG.severe(label + ": " + e.getMessage());
            writer.failQuietly(label, RunError.of(e.getMessage(), e.code()));
        } catch (RuntimeException | Error e) {
            if (leaving) {
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

    private void drive(String label) {
        HarnessTranslator translator =
                run.harness().translator(run.runId(), run.threadId(), ctx.clock()::millis);
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
        List<JsonObject> opening = new ArrayList<>();
        if (!takeover) {
            opening.add(ServiceChunks.runAccepted(chunks));
        }
        opening.addAll(translator.onStart());
        writer.emit(opening);

        SandboxHandle handle;
        try {
            handle = openSandbox(label);
            redactor = redactorFor(handle);
        } catch (ProblemException e) {
            writer.finish(
                    label,
                    List.of(chunks.runError(e.detail(), e.code().code())),
                    RunStatus.FAILED,
                    Optional.of(RunError.of(e.detail(), e.code().code())));
            return;
        }
        if (finalizing == null && cancelled()) {
            abortRun(label, chunks);
            return;
        }
        if (takeover) {
            // (A finalizer skips the wait: the reaper's probe has just read the journal's
            // sentinel.)
            if (finalizing == null && !journalAppears(handle)) {
                String message =
                        "No journal for the run in its sandbox within "
                                + ctx.takeover().journalWait().toMillis()
                                + " ms";
                writer.fail(label, RunFailure.JOURNAL_TIMEOUT, message);
                return;
            }
        } else {
            ctx.launcher().start(handle, run.journal(), agent);
            LOG.info(label + ": agent started in " + handle.id());
        }

        long lastCancelCheck = System.nanoTime();
        long lastTouch = System.nanoTime();
        // Keep the sandbox from idle expiry while the agent works in it: touch it a few
        // times per keep-alive (at most every 30 s, at least every 500 ms).
        long touchEveryNs =
                Duration.ofMillis(
                                Math.max(
                                        500,
                                        Math.min(
                                                30_000,
                                                sandbox.map(s -> s.instance().keepAliveMs() / 3)
                                                        .orElse(30_000L))))
                        .toNanos();
        // A finished journal is read whole with bounded reads; following it would cost a tail
        // process to start and to kill.
        try (JournalReader reader =
                finalizing != null
                        ? JournalReader.open(
                                handle,
                                run.journal(),
                                0,
                                JournalReaderOptions.defaults()
                                        .withMode(JournalReaderOptions.Mode.POLL))
                        : ctx.readers().open(handle, run.journal(), 0)) {
            while (true) {
                if (leaving) {
                    writer.ending(Ending.LEFT);
                    LOG.info(label + ": server stopping; the run is left running for a successor");
                    return;
                }
                if (finalizing != null && System.nanoTime() - finalizing.deadlineNanos() > 0) {
                    String message =
                            "The reaper could not replay the journal within its budget; the transcript is incomplete";
                    writer.fail(label, RunFailure.BUDGET_EXCEEDED, message);
                    if (writer.ending() == Ending.FINISHED) {
                        writer.ending(Ending.BUDGET_EXCEEDED);
                    }
                    return;
                }
                if (finalizing == null
                        && (abortRequested
                                || ((System.nanoTime() - lastCancelCheck) / 1_000_000
                                                >= CANCEL_CHECK_MS
                                        && cancelled()))) {
                    abortRun(label, chunks);
                    return;
                }
                if (finalizing == null && RunAbort.pastMaxDuration(run, ctx.clock().instant())) {
                    abortRun(label, chunks, RunAbort.maxDuration(run));
                    return;
                }
                if ((System.nanoTime() - lastCancelCheck) / 1_000_000 >= CANCEL_CHECK_MS) {
                    lastCancelCheck = System.nanoTime();
                }
                if (System.nanoTime() - lastTouch >= touchEveryNs && sandboxKey != null) {
                    ctx.sandboxes().touch(run.tenant(), sandboxKey);
                    lastTouch = System.nanoTime();
                }
                JournalReader.Batch batch;
                try {
                    batch = reader.poll(POLL);
                } catch (RuntimeException e) {
                    if (abortRequested) {
                        abortRun(label, chunks);
                        return;
                    }
                    throw e;
                }
                List<JsonObject> out = new ArrayList<>();
                for (JournalLine line : batch.lines()) {
                    out.addAll(translator.onLine(line.text()));
                }
                if (batch.exitCode().isPresent()) {
                    int code = batch.exitCode().getAsInt();
                    exitCode = code;
                    // stderr only shows in a failed exit's error; an exit 0 saves the read.
                    // The tail may begin inside a value (it is cut in the sandbox): redactTail
                    // masks that remnant.
                    String stderr =
                            code == 0
                                    ? ""
                                    : redactor.redactTail(
                                            ctx.launcher()
                                                    .errTail(handle, run.runId(), STDERR_TAIL));
                    out.addAll(translator.onExit(code, stderr));
                    translator
                            .usage()
                            .ifPresent(u -> ctx.runs().setUsage(run.ref(), Optional.of(u)));
                    out = RedactedChunks.of(redactor, out);
                    // Status comes from the translator's own last chunk; a successor may find
                    // it already stored (its predecessor died between chunk and record).
                    JsonObject last = out.get(out.size() - 1);
                    out = writer.aligned(out);
                    writer.replayEnded();
                    boolean ok = ChunkType.RUN_FINISHED.name().equals(last.getString("type"));
                    Optional<RunError> error =
                            ok
                                    ? Optional.empty()
                                    : Optional.of(
                                            new RunError(
                                                    last.getString("message", "Agent failed"),
                                                    Optional.ofNullable(
                                                            last.getString("code", null))));
                    writer.finish(label, out, ok ? RunStatus.COMPLETED : RunStatus.FAILED, error);
                    afterFinish(label, handle);
                    return;
                }
                writer.emit(RedactedChunks.of(redactor, out));
            }
        } catch (JournalStalledException e) {
            writer.fail(label, RunFailure.JOURNAL_STALLED, e.getMessage());
        } catch (JournalEndedWithoutSentinelException e) {
            String message = "Agent lost: " + agentLostReason(label, e);
            writer.fail(label, RunFailure.AGENT_LOST, message);
        } catch (ProblemException e) {
            // The sandbox went away under the reader (e.g. its container was removed).
            String message = "Sandbox failed during the run: " + e.detail();
            writer.fail(label, RunFailure.AGENT_LOST, message);
        }
    }

    /**
     * The sandbox's secrets, masked in the agent's chunks and in its stderr tail (the {@code
     * RUN_ERROR} message and the record's {@code error.message}): the run's log is stored. A first
     * driver that ensured the sandbox has them from the ensure; any other reads them from the
     * sandbox itself, so a successor or the reaper's finalizer, which never saw the ensure, masks
     * the same values.
     */
    private Redactor redactorFor(SandboxHandle handle) {
        return sandboxSpec
                .map(s -> Redactor.of(s.workspace().secrets().values()))
                .orElseGet(() -> SandboxSecrets.redactorOf(handle));
    }

    /**
     * Why the journal ended, as the run's error may say it: the stream's own account when it simply
     * ended, an incident id when a failure ended it (its text may be an engine's body).
     */
    private static String agentLostReason(String label, JournalEndedWithoutSentinelException e) {
        if (e.getCause() == null || e.getCause() instanceof ProblemException) {
            return e.getMessage();
        }
        Incident incident =
                Incident.log(LOG, Level.WARNING, label + ": " + e.getMessage(), e.getCause());
        return incident.text(
                "journal ended without an exit sentinel (at byte "
                        + e.position()
                        + "); reading it failed");
    }

    private SandboxHandle openSandbox(String label) {
        if (sandboxSpec.isPresent()) {
            Sandbox s = ctx.sandboxes().ensure(run.tenant(), sandboxSpec.get()).sandbox();
            sandboxKey = s.instance().key();
            ctx.runs().setSandboxKey(run.ref(), Optional.of(sandboxKey));
            sandbox = Optional.of(s);
            return s.handle();
        }
        if (sandboxKey == null) {
            throw new ProblemException(
                    ProblemCode.AGENT_LOST,
                    "The run has no sandbox recorded",
                    java.util.Map.of(),
                    null);
        }
        Sandbox s = ctx.sandboxes().open(run.tenant(), sandboxKey);
        sandbox = Optional.of(s);
        return s.handle();
    }

    private boolean cancelled() {
        if (abortRequested) {
            return true;
        }
        return ctx.runs().findById(run.ref()).flatMap(RunRecordView::cancelRequested).orElse(false);
    }

    private void abortRun(String label, ChunkFactory chunks) {
        abortRun(label, chunks, RunAbort.CANCELLED);
    }

    /**
     * Cancel or runaway: the sandbox always goes (that also stops the agent), then the run ends
     * aborted.
     */
    private void abortRun(String label, ChunkFactory chunks, RunError error) {
        RunAbort.destroySandbox(ctx, run.tenant(), Optional.ofNullable(sandboxKey), label);
        writer.finish(
                label,
                List.of(RunAbort.terminalChunk(chunks, error)),
                RunStatus.ABORTED,
                Optional.of(error));
        LOG.info(label + ": aborted (" + error.code().orElse(RunFailure.ABORTED.code()) + ")");
    }

    private void afterFinish(String label, SandboxHandle handle) {
        if (finalizing != null) {
            return; // the reaper reclaims the sandbox next; a journal in a kept sandbox is left to
            // prune
        }
        try {
            ctx.launcher().delete(handle, run.runId());
        } catch (RuntimeException e) {
            LOG.info(label + ": journal not deleted (prune will): " + e);
        }
        if (finalizing == null && run.destroyOnComplete() && sandboxKey != null) {
            try {
                ctx.sandboxes().delete(run.tenant(), sandboxKey);
            } catch (RuntimeException e) {
                LOG.warning(label + ": destroyOnComplete failed: " + e);
            }
        }
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
