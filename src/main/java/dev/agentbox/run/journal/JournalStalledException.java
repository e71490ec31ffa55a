package dev.agentbox.run.journal;

import java.time.Duration;

/**
 * No byte of a fresh journal (read from offset 0) arrived within the first-byte bound and no
 * process writes it: the agent never started (docs/behavior.md JN-11, problem code {@value #CODE}).
 * An agent that started and is only silent never gets here. Distinct from {@link
 * JournalEndedWithoutSentinelException}: nothing ever arrived, so nothing ended.
 */
public final class JournalStalledException extends RuntimeException {

    /** The problem code a run fails with. */
    public static final String CODE = "journal-stalled";

    public JournalStalledException(String runId, Duration bound, boolean fileExists) {
        super(
                CODE
                        + ": no journal output from run "
                        + runId
                        + " within "
                        + bound.toMillis()
                        + " ms ("
                        + (fileExists
                                ? "the journal file exists but is empty"
                                : "the journal file does not exist")
                        + " and no agent process writes it)");
    }
}
