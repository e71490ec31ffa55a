package dev.agentbox.run;

import dev.agentbox.platform.LogText;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunFailure;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Ends a run as {@code aborted}. A run that has no live driver is ended from whichever server
 * notices — a cancel received for a run whose server died, the reaper finding a cancelled or
 * runaway run nobody drives — through the run-write protocol ({@link RunWriter}) as a driver writes
 * it: the run's driver lease (taken only when free: a live driver elsewhere ends the run itself), a
 * fresh claim (a new epoch fences out any paused predecessor), then the teardown (destroying the
 * sandbox is what stops the agent), then the terminal chunk and record, both fenced by the epoch. A
 * driver that is told to abort ends its own run the same way ({@link #destroySandbox}, {@link
 * #terminalChunk}).
 *
 * <p>No quiet window: nothing is replayed, so a predecessor's late appends cannot be duplicated —
 * they land before the claim or are refused after it.
 */
public final class RunAbort {

    private static final Logger LOG = Logger.getLogger(RunAbort.class.getName());

    /**
     * Whether this call ended the run, and what the teardown returned (when it ran).
     *
     * @param <T> the teardown's report
     */
    public record Aborted<T>(boolean ended, Optional<T> teardown) {}

    /** The error of a cancelled run. */
    public static final RunError CANCELLED = RunFailure.ABORTED.error("Run was cancelled");

    private RunAbort() {}

    /** Whether {@code run} has a duration bound and {@code now} is at or past it. */
    public static boolean pastMaxDuration(RunRecordView run, java.time.Instant now) {
        return run.maxDurationMs()
                .filter(ms -> !run.startedAt().plusMillis(ms).isAfter(now))
                .isPresent();
    }

    /** The error of a run that ran past its {@code maxDurationMs}. */
    public static RunError maxDuration(RunRecordView run) {
        return RunError.of(
                "Run exceeded its maximum duration of " + run.maxDurationMs().orElse(0L) + " ms",
                RunFailure.MAX_DURATION.code());
    }

    /**
     * Aborts {@code run} with {@code error} if its driver lease is free and the fresh record is
     * still non-terminal and {@code eligible}; otherwise returns {@code ended = false} having
     * written nothing.
     */
    public static <T> Aborted<T> abort(
            RunContext ctx,
            RunRecordView run,
            Predicate<RunRecordView> eligible,
            Function<RunRecordView, T> teardown,
            RunError error) {
        Optional<RunWriter.Lease> held = RunWriter.of(ctx).lease(run.ref());
        if (held.isEmpty()) {
            return new Aborted<>(false, Optional.empty());
        }
        try (RunWriter.Lease lease = held.get()) {
            // Re-read under the lease: the run may have ended, or a viewer re-attached, since it
            // was listed.
            Optional<RunRecordView> fresh =
                    ctx.runs().findById(run.ref()).filter(r -> !r.isTerminal()).filter(eligible);
            if (fresh.isEmpty()) {
                return new Aborted<>(false, Optional.empty());
            }
            Optional<RunWriter.Claim> claim = lease.claim();
            if (claim.isEmpty()) {
                return new Aborted<>(false, Optional.empty());
            }
            T report = teardown.apply(fresh.get());
            // A slow teardown may outlast the lease: a successor may own the run by now.
            if (lease.lost()) {
                return new Aborted<>(false, Optional.ofNullable(report));
            }
            ChunkFactory chunks =
                    new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
            FinishResult result =
                    claim.get()
                            .finish(
                                    List.of(terminalChunk(chunks, error)),
                                    RunStatus.ABORTED,
                                    Optional.of(error));
            LOG.info(
                    "run "
                            + run.runId()
                            + ": aborted by "
                            + ctx.nodeId()
                            + " with epoch "
                            + claim.get().epoch()
                            + " ("
                            + error.code().orElse(RunFailure.ABORTED.code())
                            + ", "
                            + result
                            + ")");
            return new Aborted<>(result == FinishResult.FINISHED, Optional.ofNullable(report));
        } catch (StaleEpochException | RunWriter.LeaseLostException e) {
            LOG.info(
                    "run "
                            + run.runId()
                            + ": another writer took the run over while aborting: "
                            + e.getMessage());
            return new Aborted<>(false, Optional.empty());
        } finally {
            ctx.hub().signal(run.ref());
        }
    }

    /**
     * The teardown of a cancel: destroys the run's sandbox, if it has one. Returns nothing to
     * report, as an {@link #abort} teardown.
     */
    public static Void destroySandbox(RunContext ctx, RunRecordView run) {
        destroySandbox(ctx, run.tenant(), run.sandboxKey(), "run " + LogText.quote(run.runId()));
        return null;
    }

    /**
     * Cancel and runaway always destroy the sandbox: that is what stops the agent (closing an exec
     * does not). A sandbox already gone is fine: the agent is stopped either way.
     */
    static void destroySandbox(
            RunContext ctx, String tenant, Optional<String> sandboxKey, String label) {
        sandboxKey.ifPresent(
                key -> {
                    try {
                        ctx.sandboxes().delete(tenant, key);
                    } catch (ProblemException e) {
                        LOG.info(label + ": sandbox already gone at cancel: " + e.detail());
                    }
                });
    }

    /** The terminal chunk of a run ended with {@code error}. */
    static JsonObject terminalChunk(ChunkFactory chunks, RunError error) {
        return chunks.runError(error.message(), error.code().orElse(RunFailure.ABORTED.code()));
    }
}
