package dev.agentbox.sandbox.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** {@link PoolStore} on the {@code AB_POOLED_SANDBOX} table. */
@ApplicationScoped
@Transactional
public class JpaPoolStore implements PoolStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaPoolStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaPoolStore(EntityManager em) {
        this.em = em;
    }

    @Override
    public void add(PooledSandbox ready) {
        em.persist(ready);
        em.flush();
    }

    @Override
    public List<PooledSandbox> ready(String poolKey, Instant bornAfter, int limit) {
        return em.createQuery(
                        "SELECT p FROM PooledSandbox p WHERE p.poolKey = :pool AND p.state = 'READY'"
                                + " AND p.createdAt > :born ORDER BY p.createdAt, p.providerSandboxId",
                        PooledSandbox.class)
                .setParameter("pool", poolKey)
                .setParameter("born", bornAfter)
                .setMaxResults(Math.max(1, limit))
                .getResultList();
    }

    @Override
    public long countReady(String poolKey, Instant bornAfter) {
        return em.createQuery(
                        "SELECT COUNT(p) FROM PooledSandbox p WHERE p.poolKey = :pool"
                                + " AND p.state = 'READY' AND p.createdAt > :born",
                        Long.class)
                .setParameter("pool", poolKey)
                .setParameter("born", bornAfter)
                .getSingleResult();
    }

    @Override
    public boolean claim(String providerSandboxId, String claimedFor, Instant now) {
        // The row count is the verdict: of two servers claiming one row, one updates it and
        // the other finds it no longer READY.
        return em.createQuery(
                                "UPDATE PooledSandbox p SET p.state = 'CLAIMED', p.claimedAt = :now,"
                                        + " p.claimedFor = :for"
                                        + " WHERE p.providerSandboxId = :id AND p.state = 'READY'")
                        .setParameter("now", now)
                        .setParameter("for", claimedFor)
                        .setParameter("id", providerSandboxId)
                        .executeUpdate()
                == 1;
    }

    @Override
    public Optional<PooledSandbox> claimOldest(
            String poolKey, Instant bornAfter, String claimedFor, Instant now, int candidates) {
        for (PooledSandbox row : ready(poolKey, bornAfter, candidates)) {
            if (claim(row.providerSandboxId(), claimedFor, now)) {
                em.detach(row); // the bulk update bypassed it: make the copy say what was written
                row.claimedCopy(claimedFor, now);
                return Optional.of(row);
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean remove(String providerSandboxId) {
        return em.createQuery("DELETE FROM PooledSandbox p WHERE p.providerSandboxId = :id")
                        .setParameter("id", providerSandboxId)
                        .executeUpdate()
                == 1;
    }

    @Override
    public List<PooledSandbox> all(int limit) {
        return em.createQuery(
                        "SELECT p FROM PooledSandbox p ORDER BY p.createdAt, p.providerSandboxId",
                        PooledSandbox.class)
                .setMaxResults(Math.max(1, limit))
                .getResultList();
    }

    @Override
    public boolean exists(String provider, String providerSandboxId) {
        return !em.createQuery(
                        "SELECT p.providerSandboxId FROM PooledSandbox p"
                                + " WHERE p.provider = :provider AND p.providerSandboxId = :id")
                .setParameter("provider", provider)
                .setParameter("id", providerSandboxId)
                .setMaxResults(1)
                .getResultList()
                .isEmpty();
    }
}
