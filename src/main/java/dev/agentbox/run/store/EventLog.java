package dev.agentbox.run.store;

import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The append-only event log of each run, and the fenced terminal update of its record. Each method
 * is one transaction.
 *
 * <p>The fence: {@link #append} and {@link #finishRun} first lock the run's {@link DriverClaim} row
 * ({@code SELECT … FOR UPDATE}), compare its version with the caller's epoch, and write only when
 * they are equal, all in one transaction. A claim needs the same row lock to bump the epoch, so it
 * either commits before the check (and the stale writer is refused) or waits until the writer
 * committed (and the write was legitimately the old driver's, before the new epoch began). There is
 * no window in which a writer that read an old epoch can commit after a newer claim — no matter how
 * long it is paused between reading the epoch and committing.
 */
public interface EventLog {

    /**
     * Appends {@code chunks} to the run's log as seqs {@code last+1 … last+n}, if and only if
     * {@code epoch} is the run's current epoch; all or nothing. An empty batch only checks the
     * fence.
     *
     * @return the chunks as stored, in order, with their seqs
     * @throws StaleEpochException when the epoch is not current (or the run is unknown or was never
     *     claimed); nothing was written and the caller must latch shut
     * @throws IllegalArgumentException when a chunk has no string {@code type}; nothing written
     */
    List<LoggedChunk> append(RunRef run, long epoch, List<JsonObject> chunks);

    /**
     * Makes the record terminal ({@code status}, {@code finishedAt}, {@code error} — an absent
     * error clears any), if and only if {@code epoch} is the run's current epoch and the record is
     * not terminal yet. A stale caller returns normally, without writing (TK-05).
     *
     * @throws IllegalArgumentException when {@code status} is not terminal
     */
    FinishResult finishRun(
            RunRef run, long epoch, RunStatus status, Instant finishedAt, Optional<RunError> error);

    /**
     * At most {@code limit} (at least 1) chunks with seq greater than {@code afterSeq}, in seq
     * order. A read that overlaps an append's commit may see only part of that append, and not
     * necessarily its first chunks (embedded Derby at READ COMMITTED): a caller that needs the log
     * without gaps must check that each seq follows the previous one.
     */
    List<LoggedChunk> read(RunRef run, long afterSeq, int limit);

    /** The number of chunks in the run's log (equal to {@link #lastSeq}, as seqs have no gaps). */
    long size(RunRef run);

    /** The seq of the run's last chunk; 0 for an empty log. */
    long lastSeq(RunRef run);

    /** Type and fingerprint of every chunk of the run's log, in seq order, for alignment. */
    List<StoredChunk> fingerprints(RunRef run);
}
