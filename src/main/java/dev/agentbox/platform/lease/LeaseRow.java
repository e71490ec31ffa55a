package dev.agentbox.platform.lease;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * One named lease (see {@link LeaseNames}). Rows are never deleted by a holder. {@code
 * HOLDER_SESSION} is the key of the holder's server session ({@link ServerSession}) while one backs
 * the lease; it is cleared when the holder releases the lease, which also sets {@code RELEASED}.
 */
@Entity
@Table(
        name = "AB_LEASE",
        indexes = @Index(name = "AB_LEASE_HOLDER_SESSION", columnList = "HOLDER_SESSION"))
public class LeaseRow {

    @Id
    @Column(name = "NAME", length = 255)
    private String name;

    @Column(name = "HOLDER", nullable = false, length = 255)
    private String holder;

    @Column(name = "EXPIRES_AT", nullable = false)
    private Instant expiresAt;

    /** Nullable: rows written before sessions existed, and every released or sessionless lease. */
    @Column(name = "HOLDER_SESSION")
    private Long holderSession;

    /** Nullable for rows written before the column existed; null reads as false. */
    @Column(name = "RELEASED")
    private Boolean released;

    protected LeaseRow() {}

    LeaseRow(String name, String holder, Instant expiresAt, OptionalLong holderSession) {
        this.name = name;
        this.holder = holder;
        this.expiresAt = expiresAt;
        this.holderSession = holderSession.isPresent() ? holderSession.getAsLong() : null;
        this.released = false;
    }

    Lease toLease() {
        return new Lease(
                name,
                holder,
                expiresAt,
                holderSession == null ? OptionalLong.empty() : OptionalLong.of(holderSession),
                Boolean.TRUE.equals(released));
    }
}
