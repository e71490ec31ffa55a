package dev.agentbox.run.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** {@link ViewerStore} on the {@code AB_RUN_VIEWER} table. */
@ApplicationScoped
@Transactional
public class JpaViewerStore implements ViewerStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaViewerStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaViewerStore(EntityManager em) {
        this.em = em;
    }

    @Override
    public void present(RunRef run, String node, Instant now, Duration ttl) {
        int updated =
                em.createQuery("UPDATE RunViewer v SET v.expiresAt = :expires WHERE v.id = :id")
                        .setParameter("expires", now.plus(ttl))
                        .setParameter("id", RunViewer.idOf(run, node))
                        .executeUpdate();
        if (updated == 0) {
            // Only this node writes rows with its id, and it serializes its own attaches per
            // run, so this insert does not race another insert of the same id.
            em.persist(new RunViewer(run, node, now.plus(ttl)));
            em.flush();
        }
    }

    @Override
    public void absent(RunRef run, String node) {
        em.createQuery("DELETE FROM RunViewer v WHERE v.id = :id")
                .setParameter("id", RunViewer.idOf(run, node))
                .executeUpdate();
    }

    @Override
    public void renew(String node, Set<RunRef> runs, Instant now, Duration ttl) {
        if (runs.isEmpty()) {
            return;
        }
        List<String> ids = runs.stream().map(r -> RunViewer.idOf(r, node)).toList();
        Set<String> existing =
                new HashSet<>(
                        em.createQuery(
                                        "SELECT v.id FROM RunViewer v WHERE v.nodeId = :node",
                                        String.class)
                                .setParameter("node", node)
                                .getResultList());
        em.createQuery(
                        "UPDATE RunViewer v SET v.expiresAt = :expires WHERE v.nodeId = :node AND v.id IN :ids")
                .setParameter("expires", now.plus(ttl))
                .setParameter("node", node)
                .setParameter("ids", ids)
                .executeUpdate();
        for (RunRef r : runs) {
            if (!existing.contains(RunViewer.idOf(r, node))) {
                em.persist(new RunViewer(r, node, now.plus(ttl)));
            }
        }
        em.flush();
    }

    @Override
    public boolean watched(RunRef run, Instant now) {
        return !em.createQuery(
                        "SELECT v.id FROM RunViewer v WHERE v.runPk = :pk AND v.expiresAt > :now",
                        String.class)
                .setParameter("pk", run.id())
                .setParameter("now", now)
                .setMaxResults(1)
                .getResultList()
                .isEmpty();
    }
}
