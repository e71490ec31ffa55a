package dev.agentbox.agent.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Lob;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;
import java.time.Instant;
import java.util.UUID;

/**
 * One stored agent definition (table {@code AB_AGENT}). Invariant: {@code (TENANT, AGENT_ID)} is
 * unique (a database constraint, so two servers creating the same agent at once store one row); the
 * JSON is the validated definition form and never holds secrets.
 */
@Entity
@Table(
        name = "AB_AGENT",
        uniqueConstraints =
                @UniqueConstraint(
                        name = "AB_AGENT_TENANT_AGENT_ID",
                        columnNames = {"TENANT", "AGENT_ID"}))
public class AgentRow {

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    @Id
    @Column(name = "ID", length = 36)
    private String id;

    @Column(name = "TENANT", nullable = false, length = 128)
    private String tenant;

    @Column(name = "AGENT_ID", nullable = false, length = 200)
    private String agentId;

    @Lob
    @Column(name = "DEFINITION_JSON", nullable = false)
    private String definitionJson;

    /**
     * The key agentbox signs this definition's webhook posts with (docs/api.md "Webhooks"): made
     * once when the definition is created, kept when it is replaced. Null on rows stored before
     * definitions had one (their posts go unsigned).
     */
    @Column(name = "SIGNING_SECRET", length = 64)
    private String signingSecret;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Column(name = "UPDATED_AT", nullable = false)
    private Instant updatedAt;

    protected AgentRow() {}

    AgentRow(String tenant, String agentId, String definitionJson, Instant now) {
        this.id = UUID.randomUUID().toString();
        this.tenant = tenant;
        this.agentId = agentId;
        this.definitionJson = definitionJson;
        this.signingSecret = newSecret();
        this.createdAt = now;
        this.updatedAt = now;
    }

    void replace(String definitionJson, Instant now) {
        this.definitionJson = definitionJson;
        this.updatedAt = now;
    }

    private static String newSecret() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return "whsec_" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    String signingSecret() {
        return signingSecret;
    }

    StoredAgent view() {
        return new StoredAgent(agentId, definitionJson, createdAt, updatedAt);
    }
}
