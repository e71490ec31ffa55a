package dev.agentbox.run;

import dev.agentbox.platform.Incident;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.ChunkType;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.JournalEndedWithoutSentinelException;
import dev.agentbox.run.journal.JournalStalledException;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunFailure;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every way a driven run ends, each as one terminal chunk plus a terminal record written through
 * the driver's fenced {@link DriverWriter}: the agent's exit (then the journal and, if asked, the
 * sandbox are cleaned up), an abort (cancel or runaway: the sandbox goes first), a sandbox that
 * could not be had, a journal that never appeared, stalled or ended without its sentinel, and a
 * finalizer out of its budget.
 *
 * <p>Invariant: whoever reads the exit sentinel and ends the run — a driver, a successor or the
 * reaper's finalizer — deletes both journal files: nobody reads them again, and a sandbox the
 * reclaim keeps (another live run of the thread uses it) would otherwise hold them until a prune.
 * Only {@code destroyOnComplete} is left to the finalizer's caller: the reaper reclaims the sandbox
 * next.
 */
final class RunEnd {

    /** The driver's logger: one run's lines read as one story. */
    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());

    private static final int STDERR_TAIL = 1000;

    private final RunContext ctx;
    private final RunRecordView run;
    private final DriverWriter writer;
    private final RunSandbox sandbox;
    private final boolean finalizing;
    private Integer exitCode;

    RunEnd(
            RunContext ctx,
            RunRecordView run,
            DriverWriter writer,
            RunSandbox sandbox,
            boolean finalizing) {
        this.ctx = ctx;
        this.run = run;
        this.writer = writer;
        this.sandbox = sandbox;
        this.finalizing = finalizing;
    }

    /** The agent's exit code, once its journal's sentinel was read. */
    Optional<Integer> exitCode() {
        return Optional.ofNullable(exitCode);
    }

    /**
     * The agent exited with {@code code}: its last chunks ({@code out}, translated from the final
     * journal lines) and the translator's own end are written with the terminal record, whose
     * status comes from the translator's last chunk.
     */
    void exited(
            String label,
            SandboxHandle handle,
            HarnessTranslator translator,
            int code,
            List<JsonObject> out) {
        exitCode = code;
        // stderr only shows in a failed exit's error; an exit 0 saves the read.
        // The tail may begin inside a value (it is cut in the sandbox): redactTail
        // masks that remnant.
        String stderr =
                code == 0
                        ? ""
                        : sandbox.redactor()
                                .redactTail(
                                        ctx.launcher().errTail(handle, run.runId(), STDERR_TAIL));
        out.addAll(translator.onExit(code, stderr));
        translator.usage().ifPresent(u -> ctx.runs().setUsage(run.ref(), Optional.of(u)));
        out = RedactedChunks.of(sandbox.redactor(), out);
        // Status comes from the translator's own last chunk; a successor may find
        // it already stored (its predecessor died between chunk and record).
        // The agent's own terminal line may have come in an earlier batch than the sentinel
        // (a pushed journal delivers lines as they are written): then this batch adds nothing.
        JsonObject last =
                out.isEmpty()
                        ? translator
                                .terminal()
                                .map(t -> RedactedChunks.of(sandbox.redactor(), List.of(t)).get(0))
                                .orElseThrow(
                                        () ->
                                                new IllegalStateException(
                                                        "the translator ended without a terminal chunk"))
                        : out.get(out.size() - 1);
        out = writer.aligned(out);
        writer.replayEnded();
        boolean ok = ChunkType.RUN_FINISHED.name().equals(last.getString("type"));
        Optional<RunError> error =
                ok
                        ? Optional.empty()
                        : Optional.of(
                                new RunError(
                                        last.getString("message", "Agent failed"),
                                        Optional.ofNullable(last.getString("code", null))));
        writer.finish(label, out, ok ? RunStatus.COMPLETED : RunStatus.FAILED, error);
        afterFinish(label, handle);
    }

    /** The run's sandbox could not be ensured or opened. */
    void sandboxNotOpened(String label, ChunkFactory chunks, ProblemException e) {
        writer.finish(
                label,
                List.of(chunks.runError(e.detail(), e.code().code())),
                RunStatus.FAILED,
                Optional.of(RunError.of(e.detail(), e.code().code())));
    }

    void cancelled(String label, ChunkFactory chunks) {
        aborted(label, chunks, RunAbort.CANCELLED);
    }

    /**
     * Cancel or runaway: the sandbox always goes (that also stops the agent), then the run ends
     * aborted.
     */
    void aborted(String label, ChunkFactory chunks, RunError error) {
        if (run.harness() == dev.agentbox.run.harness.Harness.ACP) {
            // An ACP agent is asked to end its turn first (session/cancel), for its grace.
            sandbox.opened()
                    .ifPresent(
                            h ->
                                    dev.agentbox.run.acp.AcpInbox.cancel(
                                            h,
                                            run.runId(),
                                            dev.agentbox.run.harness.AcpPlan.ofBridge(run.bridge())
                                                    .cancelGraceMs()));
        }
        RunAbort.destroySandbox(ctx, run.tenant(), sandbox.key(), label);
        writer.finish(
                label,
                List.of(RunAbort.terminalChunk(chunks, error)),
                RunStatus.ABORTED,
                Optional.of(error));
        LOG.info(label + ": aborted (" + error.code().orElse(RunFailure.ABORTED.code()) + ")");
    }

    /**
     * The run's tool bridge did not start: its agent could not reach its tools (nor ask its
     * approvals), so the run ends {@code failed} ({@code tool-bridge-failed}) instead of running
     * blind. A first driver starts the bridge before the agent, so there is no agent to stop; a
     * successor's agent is running, and is stopped the one way an agent is stopped, by destroying
     * the sandbox (as a cancel does). The cause's text stays in the server log under an incident
     * id.
     */
    void bridgeNotStarted(
            String label, ChunkFactory chunks, boolean agentRunning, RuntimeException e) {
        Incident incident =
                Incident.log(LOG, Level.SEVERE, label + ": the run's tool bridge did not start", e);
        if (agentRunning) {
            RunAbort.destroySandbox(ctx, run.tenant(), sandbox.key(), label);
        }
        String message = incident.text("The run's tool bridge did not start");
        writer.finish(
                label,
                List.of(chunks.runError(message, RunFailure.TOOL_BRIDGE_FAILED.code())),
                RunStatus.FAILED,
                Optional.of(RunFailure.TOOL_BRIDGE_FAILED.error(message)));
    }

    /**
     * The run's egress gateway holds no value for a brokered secret the agent sends, and no server
     * here can give it ({@link RunEgressDenials#unrepairable}): the gateway was made again after
     * the server that held the value died. Every model call would be refused, so the agent is
     * stopped the one way an agent is stopped, by destroying the sandbox, and the run ends {@code
     * failed} ({@code secret-missing}) with a message that names the variable and host.
     */
    void secretMissing(
            String label, ChunkFactory chunks, dev.agentbox.sandbox.spi.EgressAudit.Refusal r) {
        RunAbort.destroySandbox(ctx, run.tenant(), sandbox.key(), label);
        String message =
                "egress.secret-missing: the egress gateway holds no value for brokered secret "
                        + r.missingSecret()
                        + " (requested for "
                        + r.host()
                        + "): the gateway was made again after the server that held the value"
                        + " stopped; start the run again with the secret";
        writer.finish(
                label,
                List.of(chunks.runError(message, RunFailure.SECRET_MISSING.code())),
                RunStatus.FAILED,
                Optional.of(RunFailure.SECRET_MISSING.error(message)));
        LOG.warning(label + ": failed (secret-missing " + r.missingSecret() + ")");
    }

    /** A successor found no journal in the sandbox within the wait. */
    void journalNeverAppeared(String label) {
        String message =
                "No journal for the run in its sandbox within "
                        + ctx.takeover().journalWait().toMillis()
                        + " ms";
        writer.fail(label, RunFailure.JOURNAL_TIMEOUT, message);
    }

    /** A finalizer ran out of its budget before the journal's end. */
    void budgetExceeded(String label) {
        String message =
                "The reaper could not replay the journal within its budget; the transcript is incomplete";
        writer.fail(label, RunFailure.BUDGET_EXCEEDED, message);
        if (writer.ending() == RunDriver.Ending.FINISHED) {
            writer.ending(RunDriver.Ending.BUDGET_EXCEEDED);
        }
    }

    void stalled(String label, JournalStalledException e) {
        writer.fail(label, RunFailure.JOURNAL_STALLED, e.getMessage());
    }

    void agentLost(String label, JournalEndedWithoutSentinelException e) {
        String message = "Agent lost: " + agentLostReason(label, e);
        writer.fail(label, RunFailure.AGENT_LOST, message);
    }

    /** The sandbox went away under the reader (e.g. its container was removed). */
    void sandboxFailed(String label, ProblemException e) {
        String message = "Sandbox failed during the run: " + e.detail();
        writer.fail(label, RunFailure.AGENT_LOST, message);
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

    private void afterFinish(String label, SandboxHandle handle) {
        try {
            ctx.launcher().delete(handle, run.runId());
        } catch (RuntimeException e) {
            LOG.info(label + ": journal not deleted (prune will): " + e);
        }
        if (finalizing) {
            return; // the reaper reclaims the sandbox next
        }
        Optional<String> key = sandbox.key();
        if (run.destroyOnComplete() && key.isPresent()) {
            try {
                ctx.sandboxes().delete(run.tenant(), key.get());
            } catch (RuntimeException e) {
                LOG.warning(label + ": destroyOnComplete failed: " + e);
            }
        }
    }
}
