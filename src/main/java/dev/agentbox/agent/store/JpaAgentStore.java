package dev.agentbox.agent.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Agent definitions on the {@code AB_AGENT} table, always scoped to one tenant: no method reads or
 * writes another tenant's rows. Each method is its own transaction.
 */
@ApplicationScoped
@Transactional
public class JpaAgentStore {

    /** What {@link #put} did. */
    public enum Put {
        CREATED,
        REPLACED,
        /** The tenant has {@code max} definitions already; nothing was stored. */
        FULL
    }

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaAgentStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaAgentStore(EntityManager em) {
        this.em = em;
    }

    public Optional<StoredAgent> find(String tenant, String agentId) {
        return row(tenant, agentId).map(AgentRow::view);
    }

    /**
     * The definition's signing secret: empty when there is no such definition, {@code ""} when it
     * was stored before definitions had one.
     */
    public Optional<String> signingSecret(String tenant, String agentId) {
        return row(tenant, agentId).map(r -> r.signingSecret() == null ? "" : r.signingSecret());
    }

    /**
     * Creates or replaces the tenant's definition. A create beyond {@code max} definitions (0 = no
     * bound) stores nothing. Two concurrent creates of one agentId: the unique constraint fails the
     * second at flush, and its caller retries (it then replaces).
     */
    public Put put(String tenant, String agentId, String definitionJson, Instant now, int max) {
        Optional<AgentRow> existing = row(tenant, agentId);
        if (existing.isPresent()) {
            existing.get().replace(definitionJson, now);
            return Put.REPLACED;
        }
        if (max > 0 && count(tenant) >= max) {
            return Put.FULL;
        }
        em.persist(new AgentRow(tenant, agentId, definitionJson, now));
        em.flush();
        return Put.CREATED;
    }

    public boolean delete(String tenant, String agentId) {
        return em.createQuery("DELETE FROM AgentRow a WHERE a.tenant = :t AND a.agentId = :a")
                        .setParameter("t", tenant)
                        .setParameter("a", agentId)
                        .executeUpdate()
                > 0;
    }

    /** The tenant's definitions sorted by agentId, at most {@code limit}. */
    public List<StoredAgent> list(String tenant, int limit) {
        return em
                .createQuery(
                        "SELECT a FROM AgentRow a WHERE a.tenant = :t ORDER BY a.agentId",
                        AgentRow.class)
                .setParameter("t", tenant)
                .setMaxResults(limit)
                .getResultList()
                .stream()
                .map(AgentRow::view)
                // The database's collation may not be code-point order (PostgreSQL's follows the
                // locale); the contract is code-point order.
                .sorted(java.util.Comparator.comparing(StoredAgent::agentId))
                .toList();
    }

    private long count(String tenant) {
        return em.createQuery("SELECT COUNT(a) FROM AgentRow a WHERE a.tenant = :t", Long.class)
                .setParameter("t", tenant)
                .getSingleResult();
    }

    private Optional<AgentRow> row(String tenant, String agentId) {
        return em
                .createQuery(
                        "SELECT a FROM AgentRow a WHERE a.tenant = :t AND a.agentId = :a",
                        AgentRow.class)
                .setParameter("t", tenant)
                .setParameter("a", agentId)
                .getResultList()
                .stream()
                .findFirst();
    }
}
