package dev.agentbox.reaper;

import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.run.RunContext;
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
import java.util.logging.Logger;

/**
 * Ends a run that stayed detached past the TTL and whose agent has not exited: under the
 * run's driver lease and a fresh claim it reclaims the sandbox (which is what stops the
 * agent: closing an exec does not), then appends the terminal chunk and records
 * {@code aborted}, both fenced by the claim's epoch. The caller has already written
 * {@code cancelRequested}, so a driver alive elsewhere stops too.
 */
final class RunExpiry {

    private static final Logger LOG = Logger.getLogger(RunExpiry.class.getName());

    /** Whether the run was ended here, and what reclaiming its sandbox did. */
    record Expired(boolean ended, Optional<Reclaimer.Reclaim> reclaim) {
    }

    private final RunContext ctx;
    private final Reclaimer reclaimer;
    private final Duration ttl;

    RunExpiry(RunContext ctx, Reclaimer reclaimer, Duration ttl) {
        this.ctx = ctx;
        this.reclaimer = reclaimer;
        this.ttl = ttl;
    }

    Expired expire(RunRecordView run) {
        RunContext.Takeover t = ctx.takeover();
        Optional<HeldLease> held = ctx.leases().acquire("run-driver:" + run.runId(), t.leaseTtl(), t.leaseRenew(), Duration.ZERO);
        if (held.isEmpty()) {
            return new Expired(false, Optional.empty());
        }
        try (HeldLease lease = held.get()) {
            Optional<RunRecordView> fresh = ctx.runs().findById(run.ref())
                    .filter(r -> !r.isTerminal() && r.detachedSince().isPresent());
            if (fresh.isEmpty()) {
                return new Expired(false, Optional.empty());
            }
            OptionalLong epoch = ctx.claims().claim(run.ref(), ctx.nodeId());
            if (epoch.isEmpty()) {
                return new Expired(false, Optional.empty());
            }
            Reclaimer.Reclaim reclaim = reclaimer.reclaim(fresh.get());
            if (lease.lost()) {
                return new Expired(false, Optional.of(reclaim));
            }
            String message = "Run was cancelled: detached since " + fresh.get().detachedSince().get()
                    + ", longer than the detached-run TTL of " + ttl.toMillis() + " ms";
            ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
            ctx.hub().publish(run.ref(), ctx.log().append(run.ref(), epoch.getAsLong(), List.of(chunks.runError(message, "aborted"))));
            FinishResult result = ctx.log().finishRun(run.ref(), epoch.getAsLong(), RunStatus.ABORTED, ctx.clock().instant(),
                    Optional.of(RunError.of(message, "aborted")));
            LOG.info("run " + run.runId() + ": expired, aborted (" + result + "), sandbox " + reclaim.outcome().wireName());
            return new Expired(result == FinishResult.FINISHED, Optional.of(reclaim));
        } catch (StaleEpochException e) {
            LOG.info("run " + run.runId() + ": another driver claimed it while expiring: " + e.getMessage());
            return new Expired(false, Optional.empty());
        } finally {
            ctx.hub().signal(run.ref());
        }
    }
}
