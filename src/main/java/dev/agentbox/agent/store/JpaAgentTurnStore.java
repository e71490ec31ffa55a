package dev.agentbox.agent.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * The agent's threads with turns, the newest {@code limit} by their newest turn (ties by thread
     * id, descending), each with its oldest turn's text. Two queries whatever the number of
     * threads: the aggregate, then the first turns of the threads it found.
     */
    public List<AgentThread> threads(String tenant, String agentId, int limit) {
        List<Object[]> rows =
                em.createQuery(
                                "SELECT t.threadId, MIN(t.createdAt), MAX(t.createdAt) AS newest,"
                                        + " COUNT(t) FROM AgentTurnRow t WHERE t.tenant = :t AND"
                                        + " t.agentId = :a GROUP BY t.threadId"
                                        + " ORDER BY newest DESC, t.threadId DESC",
                                Object[].class)
                        .setParameter("t", tenant)
                        .setParameter("a", agentId)
                        .setMaxResults(limit)
                        .getResultList();
        if (rows.isEmpty()) {
            return List.of();
        }
        List<String> ids = rows.stream().map(r -> (String) r[0]).toList();
        // Oldest turn first per thread; the first row seen for a thread is its first text. Two
        // turns made in the same instant are told apart by runId, as thread() does.
        Map<String, String> firstText = new HashMap<>();
        em.createQuery(
                        "SELECT t FROM AgentTurnRow t WHERE t.tenant = :t AND t.agentId = :a"
                                + " AND t.threadId IN :ids AND t.createdAt = (SELECT"
                                + " MIN(o.createdAt) FROM AgentTurnRow o WHERE o.tenant = t.tenant"
                                + " AND o.agentId = t.agentId AND o.threadId = t.threadId)"
                                + " ORDER BY t.runId",
                        AgentTurnRow.class)
                .setParameter("t", tenant)
                .setParameter("a", agentId)
                .setParameter("ids", ids)
                .getResultList()
                .forEach(r -> firstText.putIfAbsent(r.view().threadId(), r.view().userText()));
        return rows.stream()
                .map(
                        r ->
                                new AgentThread(
                                        (String) r[0],
                                        firstText.getOrDefault((String) r[0], ""),
                                        (Instant) r[1],
                                        (Instant) r[2],
                                        ((Number) r[3]).longValue()))
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
