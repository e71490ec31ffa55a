package dev.agentbox.platform.lease;

import java.time.Instant;
import java.util.OptionalLong;

/**
 * A snapshot of a lease row: who holds {@code name} until when, under which server session (see
 * {@link ServerSession}; empty when no session backs it), and whether its holder gave it up.
 */
public record Lease(
        String name,
        String holder,
        Instant expiresAt,
        OptionalLong holderSession,
        boolean released) {

    /** A lease taken without a server session and not released. */
    public Lease(String name, String holder, Instant expiresAt) {
        this(name, holder, expiresAt, OptionalLong.empty(), false);
    }

    /**
     * Whether the lease is still held at {@code now} (expiry is exclusive: held strictly before
     * it).
     */
    public boolean heldAt(Instant now) {
        return now.isBefore(expiresAt);
    }
}
