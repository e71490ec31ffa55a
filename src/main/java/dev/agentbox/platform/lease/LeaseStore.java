package dev.agentbox.platform.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

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
    boolean tryAcquire(String name, String holder, Instant now, Duration ttl);

    /**
     * Extends the lease only while {@code holder} still holds it unexpired; false means it was
     * lost.
     */
    boolean renew(String name, String holder, Instant now, Duration ttl);

    /** Gives the lease up if {@code holder} has it (expires it at once); otherwise does nothing. */
    void release(String name, String holder, Instant now);

    Optional<Lease> find(String name);

    /**
     * Names starting with {@code prefix} that some holder has unexpired at {@code now}: one query
     * where the reaper would otherwise read a lease per run.
     */
    java.util.Set<String> heldNames(String prefix, Instant now);
}
