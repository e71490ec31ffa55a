package dev.agentbox.run.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * Which nodes have viewers of which runs, shared by every server on one database. Each method is
 * one transaction; callers pass {@code now}.
 *
 * <p>A node counts its own viewers in memory and keeps one row per run while that count is above
 * zero: {@link #present} when the first viewer attaches, {@link #absent} when the last one leaves,
 * {@link #renew} about once per stream heartbeat. A row that is not renewed (its node died) stops
 * counting after {@code ttl}.
 */
public interface ViewerStore {

    /** Records (or extends) "{@code node} has viewers of {@code run}" until {@code now + ttl}. */
    void present(RunRef run, String node, Instant now, Duration ttl);

    /** {@code node} has no viewer of {@code run} any more. */
    void absent(RunRef run, String node);

    /**
     * Extends every row of {@code node} that names one of {@code runs} to {@code now + ttl} and
     * re-creates any that is missing (a concurrent {@link #absent} of a leaving viewer may have
     * deleted the row of a viewer that attached at the same moment).
     */
    void renew(String node, Set<RunRef> runs, Instant now, Duration ttl);

    /** Whether any node has an unexpired row for {@code run}. */
    boolean watched(RunRef run, Instant now);
}
