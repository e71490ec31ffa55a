package dev.agentbox.run;

import dev.agentbox.platform.lease.Lease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongPredicate;

/**
 * The status a run is reported with: {@code interrupted} while it is not terminal and no live
 * driver holds it, {@code running} again once a successor holds its lease. Derived at read time
 * from the run-driver lease; the stored status stays {@code running} (only fenced writers change
 * it, and nobody would be there to change it back).
 *
 * <p>A run has no live driver when its lease was never taken, expired, was released (its server
 * stopped cleanly), or is held under a server session this server has seen end (a poll of {@code
 * SessionLiveness} reported it; such a lease is taken over within one poll). A run younger than one
 * lease TTL is {@code running} whatever its lease says: its first driver may not have taken the
 * lease yet (the same grace {@link Takeovers} gives before adopting a run).
 *
 * <p>A page of runs costs one lease query ({@link Leases#findAll}), never one per run.
 */
public final class DriverLiveness {

    /** Ended session keys remembered; keys are never reused, and successors take over at once. */
    private static final int GONE_SESSIONS_KEPT = 1024;

    private final Leases leases;
    private final Clock clock;
    private final Duration leaseTtl;
    private final LinkedHashSet<Long> goneSessions = new LinkedHashSet<>();

    public DriverLiveness(Leases leases, Clock clock, Duration leaseTtl) {
        this.leases = leases;
        this.clock = clock;
        this.leaseTtl = leaseTtl;
    }

    /** A poll found leases held by these ended server sessions. */
    public void sessionsGone(Collection<Long> keys) {
        synchronized (goneSessions) {
            goneSessions.addAll(keys);
            Iterator<Long> oldest = goneSessions.iterator();
            while (goneSessions.size() > GONE_SESSIONS_KEPT && oldest.hasNext()) {
                oldest.next();
                oldest.remove();
            }
        }
    }

    private boolean sessionGone(long key) {
        synchronized (goneSessions) {
            return goneSessions.contains(key);
        }
    }

    /** {@code run} with its reported status. */
    public RunRecordView reported(RunRecordView run) {
        return reported(List.of(run)).get(0);
    }

    /** {@code runs} with their reported statuses, in the same order; one lease query. */
    public List<RunRecordView> reported(List<RunRecordView> runs) {
        List<String> names =
                runs.stream()
                        .filter(r -> !r.isTerminal())
                        .map(r -> LeaseNames.runDriver(r.ref().id()))
                        .toList();
        Map<String, Lease> found = leases.findAll(names);
        Instant now = clock.instant();
        List<RunRecordView> out = new ArrayList<>(runs.size());
        for (RunRecordView r : runs) {
            RunStatus status =
                    derive(
                            r,
                            Optional.ofNullable(found.get(LeaseNames.runDriver(r.ref().id()))),
                            now,
                            leaseTtl,
                            this::sessionGone);
            out.add(status == r.status() ? r : r.withStatus(status));
        }
        return out;
    }

    /**
     * The reported status of {@code run} at {@code now}, given its driver lease.
     *
     * @param sessionGone whether a server session key is known to have ended
     */
    static RunStatus derive(
            RunRecordView run,
            Optional<Lease> driverLease,
            Instant now,
            Duration leaseTtl,
            LongPredicate sessionGone) {
        if (run.isTerminal()) {
            return run.status();
        }
        if (now.isBefore(run.startedAt().plus(leaseTtl))) {
            return RunStatus.RUNNING;
        }
        boolean live =
                driverLease
                        .filter(l -> !l.released() && l.heldAt(now))
                        .filter(
                                l ->
                                        l.holderSession().isEmpty()
                                                || !sessionGone.test(l.holderSession().getAsLong()))
                        .isPresent();
        return live ? RunStatus.RUNNING : RunStatus.INTERRUPTED;
    }
}
