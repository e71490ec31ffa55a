package dev.agentbox.reaper;

/**
 * What a sweep did with one detached run; the wire names are the keys of the result's {@code
 * outcomes}.
 */
public enum SweepOutcome {
    /**
     * The agent had exited: the journal was replayed into the log, the run made terminal, the
     * sandbox reclaimed.
     */
    FINALIZED("finalized"),
    /** Detached for the TTL or longer: cancelled, made terminal, the sandbox reclaimed. */
    EXPIRED("expired"),
    /** The journal has no exit sentinel yet: untouched. */
    PRODUCING("producing"),
    /**
     * The probe could not tell (no sandbox key or record, sandbox or journal gone, probe failed):
     * untouched.
     */
    UNKNOWN("unknown"),
    /**
     * Finished, but the replay outran the run budget: terminal anyway (failed), log closed, sandbox
     * reclaimed.
     */
    BUDGET_EXCEEDED("budget-exceeded"),
    /**
     * Another driver holds the run, it ended meanwhile, or a viewer re-attached: untouched by this
     * sweep.
     */
    NOT_CLAIMED("not-claimed"),
    /**
     * The run is terminal but destroying its sandbox failed; the record is gone, the sandbox may
     * still run.
     */
    RECLAIM_FAILED("reclaim-failed"),
    /**
     * Something unexpected failed for this run; the sweep went on with the others. A run made
     * terminal before the failure (a reclaim that threw) still reports its status and exit code.
     */
    FAILED("failed");

    private final String wireName;

    SweepOutcome(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}
