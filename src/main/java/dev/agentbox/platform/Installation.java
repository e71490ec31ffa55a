package dev.agentbox.platform;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The single row that names this database: written on the first start against an empty database,
 * read on every later one. All servers sharing one database report the same installation id, which
 * is how an operator tells which database a server is on.
 */
@Entity
@Table(name = "AB_INSTALLATION")
public class Installation {

    public static final String SINGLETON_ID = "installation";

    @Id
    @Column(name = "ID", length = 32)
    private String id;

    @Column(name = "INSTALLATION_ID", nullable = false, length = 64)
    private String installationId;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    protected Installation() {}

    public Installation(String installationId, Instant createdAt) {
        this.id = SINGLETON_ID;
        this.installationId = installationId;
        this.createdAt = createdAt;
    }

    public String installationId() {
        return installationId;
    }

    public Instant createdAt() {
        return createdAt;
    }
}
