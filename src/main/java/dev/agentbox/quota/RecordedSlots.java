package dev.agentbox.quota;

import dev.agentbox.platform.CanonicalJson;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Counts the {@link Quota.Scope#CLUSTER} quotas: what the database records (sandbox records,
 * non-terminal runs) plus what is being created right now on any server, so that servers sharing
 * the database enforce one limit with no overshoot.
 *
 * <ul>
 *   <li>A creation in flight holds a lease {@code quota-pending:<quota>:<tenant>:<item>} (renewed
 *       while held, so a dead server's slot frees itself after the TTL). An item is counted once
 *       even while it is both recorded and pending (the instant between the record's commit and the
 *       slot's release).
 *   <li>The race it guards against: two creations of one tenant, on one server or on two, both
 *       count one free slot and both proceed. Counting and taking the pending lease are one
 *       transaction under the row lock of the tenant's gate {@code quota-gate:<quota>:<tenant>}
 *       ({@link Leases#acquireGated}), held for those few reads only, never for the creation
 *       itself; a lost server's lock goes with its connection.
 *   <li>The one overshoot left: a server that stalls (GC pause, lost database) for longer than the
 *       30 s lease TTL while holding a pending slot loses it, and another creation may take its
 *       place.
 * </ul>
 */
final class RecordedSlots {

    private static final Duration GATE_WAIT = Duration.ofSeconds(20);
    private static final Duration PENDING_TTL = Duration.ofSeconds(30);

    private final Leases leases;

    RecordedSlots(Leases leases) {
        this.leases = leases;
    }

    /**
     * Reserves a slot for creating {@code item} (a sandbox key, a runId), held until closed; close
     * it once the record is stored or the creation failed. {@link Slot#NONE} when the item is
     * already recorded or pending (it is counted already) or {@code limit} is 0.
     *
     * @param recorded the tenant's recorded items; may stop after {@code limit} of them
     * @throws QuotaExceededException when the tenant's recorded and pending items reach the limit
     */
    Slot reserve(
            String tenant, Quota quota, int limit, String item, IntFunction<Set<String>> recorded) {
        if (limit == 0) {
            return Slot.NONE;
        }
        String pendingPrefix = LeaseNames.quotaPendingPrefix(quota.wireName(), hash(tenant));
        String mine = hash(item);
        return leases.acquireGated(
                        LeaseNames.quotaGate(quota.wireName(), hash(tenant)),
                        pendingPrefix,
                        pendingPrefix + mine,
                        PENDING_TTL,
                        GATE_WAIT,
                        held -> {
                            Set<String> used = new HashSet<>();
                            recorded.apply(limit).forEach(r -> used.add(hash(r)));
                            held.forEach(n -> used.add(n.substring(pendingPrefix.length())));
                            if (used.contains(mine)) {
                                return false; // recorded or pending already: counted once
                            }
                            if (used.size() >= limit) {
                                throw new QuotaExceededException(quota, limit);
                            }
                            return true;
                        },
                        () ->
                                new ProblemException(
                                        ProblemCode.PROVIDER_UNAVAILABLE,
                                        "Too many concurrent requests of this tenant are checking its "
                                                + quota.wireName()
                                                + " quota; try again.",
                                        Map.of(),
                                        null))
                .map(p -> new Slot(p::close))
                .orElse(Slot.NONE);
    }

    /**
     * Fixed-length names: tenants and run ids may be long, lease names are at most 255 characters.
     */
    private static String hash(String s) {
        return CanonicalJson.sha256Hex(s).substring(0, 32);
    }
}
