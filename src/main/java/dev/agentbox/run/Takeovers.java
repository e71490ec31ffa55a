package dev.agentbox.run;

import dev.agentbox.platform.LogText;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.RunService.Adoption;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import java.time.Clock;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Decides whether this server takes over a run that no live driver holds, and starts the successor
 * when it does.
 *
 * <p>Invariants: at most one successor per run per server (the local drivers refuse a second); no
 * successor for a run younger than one lease TTL, whose first driver may not have taken its lease
 * yet; none beyond {@code agentbox.runs.max-driven} drivers on this server.
 */
final class Takeovers {

    /** The service's logger: takeovers read with the rest of the runs' lifecycle. */
    private static final Logger LOG = Logger.getLogger(RunService.class.getName());

    private final RunContext context;
    private final RunStore runs;
    private final Leases leases;
    private final Clock clock;
    private final LocalDrivers drivers;
    private final String nodeId;
    private final long leaseTtlMs;
    private final int maxDriven;

    Takeovers(
            RunContext context,
            RunStore runs,
            Leases leases,
            Clock clock,
            LocalDrivers drivers,
            String nodeId,
            long leaseTtlMs,
            int maxDriven) {
        this.context = context;
        this.runs = runs;
        this.leases = leases;
        this.clock = clock;
        this.drivers = drivers;
        this.nodeId = nodeId;
        this.leaseTtlMs = leaseTtlMs;
        this.maxDriven = maxDriven;
    }

    /** See {@link RunService#adopt}. */
    Adoption adopt(RunRecordView run, String why) {
        if (drivers.drives(run.ref()) || leases.held(LeaseNames.runDriver(run.ref().id()))) {
            return Adoption.DRIVEN;
        }
        // A run younger than one lease TTL may simply not have taken its lease yet: a
        // successor racing its first driver would leave nobody to start the agent.
        Optional<RunRecordView> fresh =
                runs.findById(run.ref())
                        .filter(r -> !r.isTerminal())
                        .filter(
                                r ->
                                        r.startedAt()
                                                .plusMillis(leaseTtlMs)
                                                .isBefore(clock.instant()));
        if (fresh.isEmpty()) {
            return Adoption.NOT_ELIGIBLE;
        }
        if (drivers.count() >= maxDriven) {
            LOG.warning(
                    "run "
                            + LogText.quote(run.runId())
                            + ": no live driver, but this server already drives "
                            + drivers.count()
                            + " runs (agentbox.runs.max-driven); leaving it to another server");
            return Adoption.AT_CAPACITY;
        }
        if (!drivers.launch(RunDriver.successor(context, fresh.get()))) {
            return Adoption.DRIVEN;
        }
        LOG.info(
                "run "
                        + LogText.quote(run.runId())
                        + ": no live driver; "
                        + nodeId
                        + " takes it over ("
                        + why
                        + ")");
        return Adoption.STARTED;
    }
}
