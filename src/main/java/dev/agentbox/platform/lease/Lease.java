package dev.agentbox.platform.lease;

import java.time.Instant;

/** A snapshot of a lease row: who holds {@code name} until when. */
public record Lease(String name, String holder, Instant expiresAt) {

    /**
     * Whether the lease is still held at {@code now} (expiry is exclusive: held strictly before
     * it).
     */
    public boolean heldAt(Instant now) {
        return now.isBefore(expiresAt);
    }
}
