package dev.agentbox.run.store;

import java.util.OptionalLong;

/**
 * Driver claims: the epoch fence of docs/architecture.md ("Leases, claims and epochs"). Each method
 * is one transaction.
 *
 * <p>Who may claim is decided by the lease {@code run-driver:<runId>}; the claim only makes the
 * decision stick in the data: it bumps the epoch, and every fenced write ({@link EventLog#append},
 * {@link EventLog#finishRun}) compares that epoch under the same row lock, so a driver that lost
 * its lease (paused, partitioned) cannot write anything once a successor has claimed.
 */
public interface ClaimStore {

    /**
     * Claims the run for {@code nodeId}: increments the epoch by one (1 after the first claim) and
     * returns it. Serialized with every other claim and fenced write of the run by the claim row's
     * lock, so concurrent claims get distinct, consecutive epochs and a claim waits for an
     * in-flight append to commit (or roll back) before it takes effect.
     *
     * @return the new epoch; empty, with the epoch unchanged, when the run is unknown or terminal
     *     (TK-01)
     */
    OptionalLong claim(RunRef run, String nodeId);

    /** The run's current epoch; empty before its first claim or for an unknown run. */
    OptionalLong epoch(RunRef run);
}
