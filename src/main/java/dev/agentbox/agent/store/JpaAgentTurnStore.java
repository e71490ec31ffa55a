package dev.agentbox.agent.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Optional;

/** {@link AgentTurn}s on the {@code AB_AGENT_TURN} table; each method is its own transaction. */
@ApplicationScoped
@Transactional
public class JpaAgentTurnStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaAgentTurnStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaAgentTurnStore(EntityManager em) {
        this.em = em;
    }

    /**
     * Inserts the turn; fails (unique constraint, at flush) when the tenant's runId has one already
     * — call it outside a transaction and re-check with {@link #find} to tell a lost race.
     */
    public void create(AgentTurn turn) {
        em.persist(new AgentTurnRow(turn));
        em.flush();
    }

    public Optional<AgentTurn> find(String tenant, String runId) {
        return em
                .createQuery(
                        "SELECT t FROM AgentTurnRow t WHERE t.tenant = :t AND t.runId = :r",
                        AgentTurnRow.class)
                .setParameter("t", tenant)
                .setParameter("r", runId)
                .getResultList()
                .stream()
                .findFirst()
                .map(AgentTurnRow::view);
    }

    /** The newest {@code limit} turns of the agent in the thread, newest first. */
    public List<AgentTurn> thread(String tenant, String agentId, String threadId, int limit) {
        return em
                .createQuery(
                        "SELECT t FROM AgentTurnRow t WHERE t.tenant = :t AND t.agentId = :a"
                                + " AND t.threadId = :th ORDER BY t.createdAt DESC, t.runId DESC",
                        AgentTurnRow.class)
                .setParameter("t", tenant)
                .setParameter("a", agentId)
                .setParameter("th", threadId)
                .setMaxResults(limit)
                .getResultList()
                .stream()
                .map(AgentTurnRow::view)
                .toList();
    }

    /** Removes the turn of a run that could not be started. */
    public void delete(String tenant, String runId) {
        em.createQuery("DELETE FROM AgentTurnRow t WHERE t.tenant = :t AND t.runId = :r")
                .setParameter("t", tenant)
                .setParameter("r", runId)
                .executeUpdate();
    }
}
