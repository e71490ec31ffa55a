package dev.agentbox.platform.lease;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One named lease (see {@link LeaseNames}). Rows are never deleted by a holder. */
@Entity
@Table(name = "AB_LEASE")
public class LeaseRow {

    @Id
    @Column(name = "NAME", length = 255)
    private String name;

    @Column(name = "HOLDER", nullable = false, length = 255)
    private String holder;

    @Column(name = "EXPIRES_AT", nullable = false)
    private Instant expiresAt;

    protected LeaseRow() {}

    LeaseRow(String name, String holder, Instant expiresAt) {
        this.name = name;
        this.holder = holder;
        this.expiresAt = expiresAt;
    }

    Lease toLease() {
        return new Lease(name, holder, expiresAt);
    }
}
