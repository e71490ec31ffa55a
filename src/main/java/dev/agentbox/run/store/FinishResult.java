package dev.agentbox.run.store;

/** What {@link EventLog#finishRun} did. Only {@link #FINISHED} wrote anything. */
public enum FinishResult {
    /** The record is now terminal with the given status, finishedAt and error. */
    FINISHED,
    /** The caller's epoch is not the run's current one (or the run is unknown): nothing written. */
    STALE_EPOCH,
    /** The record was already terminal; terminal states are final, so nothing was written. */
    ALREADY_TERMINAL
}
