package dev.agentbox.run.store;

/**
 * Bounds of list and read calls: JPA reads {@code setMaxResults(0)} as "no limit", so 0 is refused
 * rather than ambiguous.
 */
final class Limits {

    private Limits() {}

    static int require(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        return limit;
    }
}
