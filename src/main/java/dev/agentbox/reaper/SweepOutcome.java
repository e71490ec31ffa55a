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
    /**
     * Past its {@code maxDurationMs} (being detached alone never expires a run): {@code
     * cancelRequested} written, then the run made terminal — {@code aborted} ({@code max-duration})
     * if its agent was still producing, finalized if it had just exited — and the sandbox
     * reclaimed.
     */
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
     * The reclaim was rejected — the provider's destroy failed (the instance record deleted anyway)
     * or the reclaim threw — after the run was made terminal: the sandbox may still run, and no
     * later sweep retries it. Overrides whatever the run's outcome would have been; the line keeps
     * its status, exit code and {@code terminalizedAnyway}.
     */
    RECLAIM_FAILED("reclaim-failed"),
    /**
     * Something unexpected failed for this run (not its reclaim); the sweep went on with the
     * others.
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
