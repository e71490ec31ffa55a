package dev.agentbox.run;

import dev.agentbox.platform.LogText;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Lands a recorded cancel on a run that no driver on this server holds: it waits at most one lease
 * TTL (plus a margin) for a lease that is still held to expire, then claims the run, destroys its
 * sandbox and ends it {@code aborted}.
 *
 * <p>Invariants: it never writes while any driver holds the run's lease (a live driver elsewhere
 * sees the cancel itself); it stops as soon as the run is terminal, a driver on this server took it
 * (then that driver is aborted), or the server is stopping; what it leaves, the reaper aborts.
 */
final class CancelLanding {

    /** The service's logger: a landed cancel reads with the cancel request. */
    private static final Logger LOG = Logger.getLogger(RunService.class.getName());

    private final RunContext context;
    private final RunStore runs;
    private final Leases leases;
    private final LocalDrivers drivers;
    private final String nodeId;
    private final long leaseTtlMs;

    CancelLanding(
            RunContext context,
            RunStore runs,
            Leases leases,
            LocalDrivers drivers,
            String nodeId,
            long leaseTtlMs) {
        this.context = context;
        this.runs = runs;
        this.leases = leases;
        this.drivers = drivers;
        this.nodeId = nodeId;
        this.leaseTtlMs = leaseTtlMs;
    }

    /**
     * Aborts this server's driver of {@code run} at once, else lands the cancel in the background.
     */
    void land(RunRecordView run) {
        if (!drivers.abort(run.ref())) {
            drivers.inBackground(() -> landCancel(run));
        }
    }

    private void landCancel(RunRecordView run) {
        long deadline = System.nanoTime() + Duration.ofMillis(leaseTtlMs + 5_000).toNanos();
        try {
            while (System.nanoTime() < deadline && !drivers.stopping()) {
                Optional<RunRecordView> fresh = runs.findById(run.ref());
                if (fresh.isEmpty() || fresh.get().isTerminal() || drivers.abort(run.ref())) {
                    return;
                }
                if (!leases.held(LeaseNames.runDriver(run.ref().id()))) {
                    RunAbort.Aborted<Void> a =
                            RunAbort.abort(
                                    context,
                                    fresh.get(),
                                    r -> true,
                                    r -> RunAbort.destroySandbox(context, r),
                                    RunAbort.CANCELLED);
                    if (a.ended()) {
                        LOG.info(
                                "run "
                                        + LogText.quote(run.runId())
                                        + ": no live driver; cancel landed by "
                                        + nodeId);
                        return;
                    }
                }
                Thread.sleep(250);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warning(
                    "run "
                            + LogText.quote(run.runId())
                            + ": could not land the cancel here (the reaper will): "
                            + e);
        }
    }
}
