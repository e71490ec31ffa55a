package dev.agentbox.reaper;

import dev.agentbox.run.RunAbort;
import dev.agentbox.run.RunContext;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunRecordView;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * Ends a run the reaper must stop — past its {@code maxDurationMs}, or cancelled while no driver
 * holds it — whose agent has not exited: through {@link RunAbort}, which writes it through the
 * run-write protocol like any driver, with the reclaimer as the teardown (destroying the sandbox is
 * what stops the agent: closing an exec does not). The caller has already written {@code
 * cancelRequested}, so a driver alive elsewhere stops too.
 */
final class RunExpiry {

    /**
     * Whether the run was ended here, and what reclaiming its sandbox did: its outcome, or the
     * failure it threw.
     */
    record Expired(
            boolean ended,
            Optional<Reclaimer.Reclaim> reclaim,
            Optional<RuntimeException> reclaimThrew) {

        /** Whether the reclaim was rejected: it threw, or the provider's destroy failed. */
        boolean reclaimRejected() {
            return reclaimThrew.isPresent()
                    || reclaim.filter(r -> r.outcome() == ReclaimOutcome.DESTROY_FAILED)
                            .isPresent();
        }
    }

    private final RunContext ctx;
    private final Reclaimer reclaimer;

    RunExpiry(RunContext ctx, Reclaimer reclaimer) {
        this.ctx = ctx;
        this.reclaimer = reclaimer;
    }

    /**
     * Ends {@code run} with {@code error} if it is still non-terminal and {@code eligible}. A
     * reclaim that throws (a store failure before or after the destroy) does not keep the run
     * running: it is ended all the same and the failure comes back in {@link Expired#reclaimThrew},
     * for the sweep to report {@code reclaim-failed} — the run is over, its sandbox may not be.
     */
    Expired expire(RunRecordView run, Predicate<RunRecordView> eligible, RunError error) {
        AtomicReference<RuntimeException> threw = new AtomicReference<>();
        RunAbort.Aborted<Reclaimer.Reclaim> a =
                RunAbort.abort(
                        ctx,
                        run,
                        eligible,
                        r -> {
                            try {
                                return reclaimer.reclaim(r);
                            } catch (RuntimeException e) {
                                threw.set(e);
                                return null;
                            }
                        },
                        error);
        return new Expired(a.ended(), a.teardown(), Optional.ofNullable(threw.get()));
    }
}
