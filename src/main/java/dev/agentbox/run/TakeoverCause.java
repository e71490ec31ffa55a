package dev.agentbox.run;

/** Why a successor took a run over: the tag of the {@code agentbox.runs.takeovers} counter. */
public enum TakeoverCause {
    /**
     * The driver's server session ended (its process died, or its connection was cut): taken at
     * once, no quiet window.
     */
    SESSION_GONE("session-gone"),
    /**
     * The driver's lease expired unreleased (a frozen or partitioned server, or no session): quiet
     * window, then claim.
     */
    LEASE_EXPIRED("lease-expired"),
    /** The driver released its lease on the way out of a stopping server. */
    GRACEFUL_HAND_OVER("graceful-hand-over");

    private final String tag;

    TakeoverCause(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
