package dev.agentbox.platform.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Named, expiring leases shared by every server on one database. Each method is one transaction.
 * The caller supplies {@code now} from its clock, so expiry is testable.
 *
 * <p>Invariant: at any instant at most one holder has a lease that is not expired. Taking is a
 * compare-and-set (one conditional UPDATE checked by its row count), never a read followed by a
 * write, so two servers cannot both believe they won.
 */
public interface LeaseStore {

    /**
     * Takes {@code name} for {@code holder} until {@code now + ttl} when it is free, expired at
     * {@code now}, or already held by {@code holder}. False when another holder has it. May throw a
     * persistence exception when a first-ever insert races another; callers retry (see {@link
     * Leases}).
     */
    default boolean tryAcquire(String name, String holder, Instant now, Duration ttl) {
        return tryAcquire(name, holder, OptionalLong.empty(), now, ttl);
    }

    /** What {@link #tryAcquireGated} did. */
    enum Gated {
        /** {@code admit} agreed and the lease was taken. */
        TAKEN,
        /** {@code admit} declined (or another holder has the name): nothing was written. */
        DECLINED,
        /**
         * The gate is held as a lease (by a server that still serializes with gate leases): nothing
         * was decided; try again shortly.
         */
        GATE_BUSY
    }

    /**
     * Takes {@code name} as {@link #tryAcquire(String, String, OptionalLong, Instant, Duration)}
     * does, if {@code admit} agrees when shown the names starting with {@code prefix} held at
     * {@code now}: one transaction, under the row lock of {@code gate} (a row of this table,
     * created unheld on first use), so that two takers on any servers never decide on the same
     * state — the second waits for the first's commit and then sees its lease.
     *
     * <p>The race it guards against: two creations both count one free slot and both proceed.
     * Before this, the gate was a lease taken and released around the count: four more commits per
     * creation. A gate row that is held as a lease still excludes ({@link Gated#GATE_BUSY}), so
     * servers of both kinds can share one database during an upgrade.
     *
     * <p>{@code admit} runs inside the transaction: what it reads through other stores joins it,
     * and an exception it throws rolls everything back and reaches the caller. May throw a
     * persistence exception when a first-ever insert (of the gate or of {@code name}) races
     * another; callers retry.
     */
    Gated tryAcquireGated(
            String gate,
            String prefix,
            String name,
            String holder,
            OptionalLong session,
            Instant now,
            Duration ttl,
            Predicate<Set<String>> admit);

    /**
     * As {@link #tryAcquire(String, String, Instant, Duration)}, recording {@code session} (the key
     * of the taker's {@link ServerSession}, empty when it has none) as the lease's holder session.
     */
    boolean tryAcquire(String name, String holder, OptionalLong session, Instant now, Duration ttl);

    /**
     * Takes {@code name} for {@code holder} until {@code now + ttl}, whatever its expiry, but only
     * while its holder session is still {@code goneSession}: a compare-and-set on that column. The
     * caller has seen that session end; session keys are never reused, so a session that has ended
     * stays ended and its holder writes nothing more (see {@link ServerSession}). False when the
     * lease has changed hands since, or was released.
     */
    boolean takeFromGoneSession(
            String name,
            String holder,
            OptionalLong session,
            long goneSession,
            Instant now,
            Duration ttl);

    /**
     * Clears the holder session of {@code name} if it is still {@code goneSession}, leaving holder
     * and expiry as they are: for a lease of a run that needs no successor (it has ended), so that
     * nobody keeps finding it.
     */
    void forgetGoneSession(String name, long goneSession);

    /**
     * Extends the lease only while {@code holder} still holds it unexpired; false means it was
     * lost.
     */
    boolean renew(String name, String holder, Instant now, Duration ttl);

    /**
     * Gives the lease up if {@code holder} has it (expires it at once, marks it released and clears
     * its holder session); otherwise does nothing.
     */
    void release(String name, String holder, Instant now);

    Optional<Lease> find(String name);

    /**
     * The lease rows of those of {@code names} that were ever taken, by name: one query where a
     * page of runs would otherwise read a lease each. This default reads them one by one.
     */
    default Map<String, Lease> findAll(Collection<String> names) {
        Map<String, Lease> found = new HashMap<>();
        for (String name : names) {
            find(name).ifPresent(l -> found.put(name, l));
        }
        return found;
    }

    /**
     * Names starting with {@code prefix} that some holder has unexpired at {@code now}: one query
     * where the reaper would otherwise read a lease per run.
     */
    Set<String> heldNames(String prefix, Instant now);
}
