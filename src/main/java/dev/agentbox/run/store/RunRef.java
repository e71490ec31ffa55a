package dev.agentbox.run.store;

import java.util.Objects;

/**
 * The store's own reference to one run: a surrogate id assigned when the run record is created,
 * unique across tenants. It is distinct from the tenant-scoped {@code runId} a client chose, so
 * that claim rows and log rows never need the tenant, and a type of its own so that the two can
 * never be mixed up in a signature.
 *
 * @param id the opaque surrogate id (at most {@value #MAX_LENGTH} characters)
 */
public record RunRef(String id) {

    /** Column width of every column that holds a {@code RunRef}. */
    public static final int MAX_LENGTH = 36;

    public RunRef {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty() || id.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("run ref must be 1.." + MAX_LENGTH + " characters");
        }
    }
}
