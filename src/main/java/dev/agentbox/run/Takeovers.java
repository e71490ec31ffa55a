package dev.agentbox.run;

import dev.agentbox.platform.LogText;
import dev.agentbox.platform.lease.Lease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.platform.lease.ServerSession.GoneLease;
import dev.agentbox.run.RunService.Adoption;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * Decides whether this server takes over a run that no live driver holds, and starts the successor
 * when it does.
 *
 * <p>Two ways to learn a driver is gone: its lease is free (expired or released: {@link #adopt},
 * from an attaching viewer or the reaper), or its server session ended ({@link #adoptGone}, from
 * every poll of {@code SessionLiveness}, watched or not).
 *
 * <p>Invariants: at most one successor per run per server (the local drivers refuse a second); no
 * successor by lease for a run younger than one lease TTL, whose first driver may not have taken
 * its lease yet (a gone session's lease was taken, so that wait does not apply); none beyond {@code
 * agentbox.runs.max-driven} drivers on this server; none for a run whose sandbox's provider is not
 * enabled on this server (it would only fail the run: a server that has the provider takes it).
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

    private final ProviderCheck providers;

    /**
     * Sandboxes ({@code tenant NUL key}) whose provider this server lacks. A key names its provider
     * (it is part of the key), so the answer holds for the server's life: a run left to another
     * server is not looked up again on every session poll (four a second) while it waits. Bounded:
     * past {@link #ELSEWHERE_MAX} it starts over.
     */
    private final Set<String> elsewhere = ConcurrentHashMap.newKeySet();

    static final int ELSEWHERE_MAX = 10_000;

    /**
     * Whether this server has the provider of a tenant's sandbox enabled ({@code
     * SandboxService.providerEnabledHere}); asked only on takeover paths, never per chunk.
     */
    @FunctionalInterface
    interface ProviderCheck {
        boolean enabledHere(String tenant, String sandboxKey);
    }

    /** When "at capacity" was last logged for a gone session's run: once a minute, not per poll. */
    private volatile long lastCapacityWarning;

    Takeovers(
            RunContext context,
            RunStore runs,
            Leases leases,
            Clock clock,
            LocalDrivers drivers,
            String nodeId,
            long leaseTtlMs,
            int maxDriven,
            ProviderCheck providers) {
        this.context = context;
        this.runs = runs;
        this.leases = leases;
        this.clock = clock;
        this.drivers = drivers;
        this.nodeId = nodeId;
        this.leaseTtlMs = leaseTtlMs;
        this.maxDriven = maxDriven;
        this.providers = providers;
    }

    /** See {@link RunService#adopt}. */
    Adoption adopt(RunRecordView run, String why) {
        if (drivers.drives(run.ref())) {
            return Adoption.DRIVEN;
        }
        Optional<Lease> lease = leases.find(LeaseNames.runDriver(run.ref().id()));
        if (lease.isPresent() && lease.get().heldAt(clock.instant())) {
            return Adoption.DRIVEN;
        }
        TakeoverCause cause =
                lease.isPresent() && lease.get().released()
                        ? TakeoverCause.GRACEFUL_HAND_OVER
                        : TakeoverCause.LEASE_EXPIRED;
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
        if (fresh.isEmpty() || !providerHere(fresh.get())) {
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
        if (!drivers.launch(RunDriver.successor(context, fresh.get(), cause))) {
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

    /** Whether this server can drive {@code run}: it has the provider of the run's sandbox. */
    private boolean providerHere(RunRecordView run) {
        if (run.sandboxKey().isEmpty()) {
            return true;
        }
        String sandbox = run.tenant() + '\0' + run.sandboxKey().get();
        if (elsewhere.contains(sandbox)) {
            return false;
        }
        if (providers.enabledHere(run.tenant(), run.sandboxKey().get())) {
            return true;
        }
        if (elsewhere.size() >= ELSEWHERE_MAX) {
            elsewhere.clear();
        }
        elsewhere.add(sandbox);
        return false;
    }

    /**
     * Starts a successor on this server for each run whose driver lease is held by an ended server
     * session. Every server sees the same leases; the first successor to take the lease from the
     * gone session wins, the others find it taken and stop. A lease of a run that has ended, or is
     * unknown, gets its gone session cleared so that no poll finds it again.
     */
    void adoptGone(List<GoneLease> gone) {
        for (GoneLease lease : gone) {
            String id = lease.name().substring(LeaseNames.RUN_DRIVER_PREFIX.length());
            if (id.isEmpty() || id.length() > RunRef.MAX_LENGTH) {
                continue;
            }
            RunRef ref = new RunRef(id);
            if (drivers.drives(ref)) {
                // This server's successor is already on it, or its own driver that lost the
                // session has not yet noticed: the next poll looks again.
                continue;
            }
            Optional<RunRecordView> run = runs.findById(ref).filter(r -> !r.isTerminal());
            if (run.isEmpty()) {
                leases.forgetGoneSession(lease.name(), lease.goneSession());
                continue;
            }
            if (!providerHere(run.get())) {
                continue; // another server, which has the provider, takes it
            }
            if (drivers.count() >= maxDriven) {
                if (System.nanoTime() - lastCapacityWarning > 60_000_000_000L) {
                    lastCapacityWarning = System.nanoTime();
                    LOG.warning(
                            "run "
                                    + LogText.quote(run.get().runId())
                                    + ": its driver's server session ended, but this server"
                                    + " already drives "
                                    + drivers.count()
                                    + " runs (agentbox.runs.max-driven); leaving it to another"
                                    + " server");
                }
                continue;
            }
            if (drivers.launch(
                    RunDriver.successorOfGoneSession(context, run.get(), lease.goneSession()))) {
                LOG.info(
                        "run "
                                + LogText.quote(run.get().runId())
                                + ": its driver's server session "
                                + lease.goneSession()
                                + " ended; "
                                + nodeId
                                + " takes it over at once");
            }
        }
    }
}
