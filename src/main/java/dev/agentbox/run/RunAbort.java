package dev.agentbox.run;

import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Ends a run that has no live driver as {@code aborted}, from whichever server notices: a
 * cancel received for a run whose server died, the reaper finding a cancelled or runaway run
 * nobody drives. Same write protocol as a driver: the run's driver lease (taken only when
 * free: a live driver elsewhere ends the run itself), a fresh claim (a new epoch fences out
 * any paused predecessor), then the teardown (destroying the sandbox is what stops the agent),
 * then the terminal chunk and record, both fenced by the epoch.
 *
 * <p>No quiet window: nothing is replayed, so a predecessor's late appends cannot be
 * duplicated — they land before the claim or are refused after it.
 */
public final class RunAbort {

    private static final Logger LOG = Logger.getLogger(RunAbort.class.getName());

    /**
     * Whether this call ended the run, and what the teardown returned (when it ran).
     *
     * @param <T> the teardown's report
     */
    public record Aborted<T>(boolean ended, Optional<T> teardown) {
    }

    /** The error of a cancelled run. */
    public static final RunError CANCELLED = RunError.of("Run was cancelled", "aborted");

    private RunAbort() {
    }

    /** Whether {@code run} has a duration bound and {@code now} is at or past it. */
    public static boolean pastMaxDuration(RunRecordView run, java.time.Instant now) {
        return run.maxDurationMs().filter(ms -> !run.startedAt().plusMillis(ms).isAfter(now)).isPresent();
    }

    /** The error of a run that ran past its {@code maxDurationMs}. */
    public static RunError maxDuration(RunRecordView run) {
        return RunError.of("Run exceeded its maximum duration of " + run.maxDurationMs().orElse(0L) + " ms", "max-duration");
    }

    /**
     * Aborts {@code run} with {@code error} if its driver lease is free and the fresh record is
     * still non-terminal and {@code eligible}; otherwise returns {@code ended = false} having
     * written nothing.
     */
    public static <T> Aborted<T> abort(RunContext ctx, RunRecordView run, Predicate<RunRecordView> eligible,
            Function<RunRecordView, T> teardown, RunError error) {
        RunContext.Takeover t = ctx.takeover();
        Optional<HeldLease> held = ctx.leases().acquire(LeaseNames.runDriver(run.ref().id()), t.leaseTtl(), t.leaseRenew(), Duration.ZERO);
        if (held.isEmpty()) {
            return new Aborted<>(false, Optional.empty());
        }
        try (HeldLease lease = held.get()) {
            Optional<RunRecordView> fresh = ctx.runs().findById(run.ref()).filter(r -> !r.isTerminal()).filter(eligible);
            if (fresh.isEmpty()) {
                return new Aborted<>(false, Optional.empty());
            }
            OptionalLong epoch = ctx.claims().claim(run.ref(), ctx.nodeId());
            if (epoch.isEmpty()) {
                return new Aborted<>(false, Optional.empty());
            }
            T report = teardown.apply(fresh.get());
            if (lease.lost()) {
                return new Aborted<>(false, Optional.ofNullable(report));
            }
            ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
            ctx.hub().publish(run.ref(), ctx.log().append(run.ref(), epoch.getAsLong(),
                    List.of(chunks.runError(error.message(), error.code().orElse("aborted")))));
            FinishResult result = ctx.log().finishRun(run.ref(), epoch.getAsLong(), RunStatus.ABORTED, ctx.clock().instant(),
                    Optional.of(error));
            LOG.info("run " + run.runId() + ": aborted by " + ctx.nodeId() + " with epoch " + epoch.getAsLong()
                    + " (" + error.code().orElse("aborted") + ", " + result + ")");
            return new Aborted<>(result == FinishResult.FINISHED, Optional.ofNullable(report));
        } catch (StaleEpochException e) {
            LOG.info("run " + run.runId() + ": another driver claimed it while aborting: " + e.getMessage());
            return new Aborted<>(false, Optional.empty());
        } finally {
            ctx.hub().signal(run.ref());
        }
    }
}
