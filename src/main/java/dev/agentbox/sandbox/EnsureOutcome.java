package dev.agentbox.sandbox;

/**
 * How an ensure found its sandbox: the recorded one running, restored from its snapshot, or newly
 * made.
 */
public enum EnsureOutcome {
    RESUMED,
    RESTORED,
    CREATED;

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
