package dev.agentbox.sandbox.store;

/**
 * Tells a write that lost a version check from a real failure. The check fails at commit, outside
 * the store's transactional method, so the caller of the store asks here instead of knowing the
 * persistence API.
 */
public final class ConcurrentWrites {

    private ConcurrentWrites() {}

    /**
     * Whether {@code t} (or a cause) is an optimistic-lock failure: another write won the version
     * check.
     */
    public static boolean lost(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof jakarta.persistence.OptimisticLockException) {
                return true;
            }
        }
        return false;
    }
}
