package dev.agentbox.sandbox.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The rows of the warm pool, shared by every server of an installation. Each method is one
 * transaction. The one write that hands a sandbox out, {@link #claim}, is a compare-and-set judged
 * by its row count, so two servers never hand the same sandbox to two ensures.
 */
public interface PoolStore {

    /** Records a sandbox that exists and is ready. */
    void add(PooledSandbox ready);

    /**
     * Up to {@code limit} ready sandboxes of {@code poolKey} made after {@code bornAfter}, oldest
     * first (the oldest are the nearest to retirement).
     */
    List<PooledSandbox> ready(String poolKey, Instant bornAfter, int limit);

    /** How many ready sandboxes of {@code poolKey} were made after {@code bornAfter}. */
    long countReady(String poolKey, Instant bornAfter);

    /**
     * Moves {@code providerSandboxId} from READY to CLAIMED for {@code claimedFor}; false when it
     * was not READY any more (another claim won, or it was retired).
     */
    boolean claim(String providerSandboxId, String claimedFor, Instant now);

    /**
     * Claims the oldest of up to {@code candidates} ready sandboxes of {@code poolKey} made after
     * {@code bornAfter} for {@code claimedFor}: the read and the compare-and-set of {@link #claim}
     * in one transaction (a claim is on the path of an ensure, and each transaction costs it
     * milliseconds). A candidate another claim wins meanwhile is skipped for the next; empty when
     * none was left.
     */
    Optional<PooledSandbox> claimOldest(
            String poolKey, Instant bornAfter, String claimedFor, Instant now, int candidates);

    /** Forgets the row (the sandbox became a recorded one, or was destroyed); false when absent. */
    boolean remove(String providerSandboxId);

    /** Every row, oldest first, at most {@code limit}. */
    List<PooledSandbox> all(int limit);

    /** Whether a row names this provider sandbox (the orphan collector leaves it alone). */
    boolean exists(String provider, String providerSandboxId);
}
