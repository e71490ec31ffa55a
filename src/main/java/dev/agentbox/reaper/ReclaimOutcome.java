package dev.agentbox.reaper;

/** What reclaiming a terminal run's sandbox did. */
public enum ReclaimOutcome {
    /** The provider destroyed it and the instance record is deleted. */
    DESTROYED("destroyed"),
    /**
     * The provider's destroy threw; the record was deleted anyway, so the sandbox may still be
     * running and is no longer reachable through agentbox. Never reported as success.
     */
    DESTROY_FAILED("destroy-failed"),
    /** The run never had a sandbox. */
    NO_SANDBOX_KEY("no-sandbox-key"),
    /** No instance record for the key: nothing to do. */
    NOT_FOUND("not-found"),
    /** The record names a provider this server does not run: refused, nothing touched. */
    PROVIDER_MISMATCH("provider-mismatch"),
    /**
     * Another live run uses the sandbox, or an ensure of it is in progress: kept (idle expiry takes
     * it later).
     */
    IN_USE("in-use");

    private final String wireName;

    ReclaimOutcome(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}
