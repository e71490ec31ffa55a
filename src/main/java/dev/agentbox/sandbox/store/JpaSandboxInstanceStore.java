package dev.agentbox.sandbox.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** {@link SandboxInstanceStore} on the {@code AB_SANDBOX_INSTANCE} table. */
@ApplicationScoped
@Transactional
public class JpaSandboxInstanceStore implements SandboxInstanceStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaSandboxInstanceStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaSandboxInstanceStore(EntityManager em) {
        this.em = em;
    }

    @Override
    @Transactional(Transactional.TxType.SUPPORTS)
    public Optional<SandboxInstance> find(String tenant, String key) {
        // A single read needs no transaction of its own (it joins the caller's when there is
        // one): beginning and committing one cost more than the read on every request.
        return Optional.ofNullable(em.find(SandboxInstance.class, key))
                .filter(i -> i.tenant().equals(tenant));
    }

    @Override
    public SandboxInstance upsert(SandboxInstance instance) {
        SandboxInstance existing = em.find(SandboxInstance.class, instance.key());
        if (existing == null) {
            em.persist(instance);
            em.flush();
            return instance;
        }
        // Replace state, keep the row's version lineage (merge of a detached copy would
        // fail on a stale version; the caller holds the sandbox lease while writing).
        existing.copyStateFrom(instance);
        em.flush();
        return existing;
    }

    @Override
    public boolean delete(String tenant, String key) {
        return em.createQuery(
                                "DELETE FROM SandboxInstance i WHERE i.key = :key AND i.tenant = :tenant")
                        .setParameter("key", key)
                        .setParameter("tenant", tenant)
                        .executeUpdate()
                == 1;
    }

    @Override
    public List<SandboxInstance> list(String tenant) {
        return em.createQuery(
                        "SELECT i FROM SandboxInstance i WHERE i.tenant = :tenant ORDER BY i.createdAt, i.key",
                        SandboxInstance.class)
                .setParameter("tenant", tenant)
                .getResultList();
    }

    @Override
    public List<SandboxInstance> listAll(int limit) {
        return em.createQuery(
                        "SELECT i FROM SandboxInstance i ORDER BY i.createdAt, i.key",
                        SandboxInstance.class)
                .setMaxResults(Math.max(1, limit))
                .getResultList();
    }

    @Override
    public List<SandboxInstance> listIdle(Instant now, int limit) {
        // keep-alive differs per row, so the idle test runs on the loaded candidates.
        return em.createQuery(
                        "SELECT i FROM SandboxInstance i WHERE i.lastUsedAt < :now ORDER BY i.lastUsedAt, i.key",
                        SandboxInstance.class)
                .setParameter("now", now)
                .getResultStream()
                .filter(i -> i.idleAt(now))
                .limit(limit)
                .toList();
    }

    @Override
    public boolean existsForProviderSandbox(String provider, String providerSandboxId) {
        return !em.createQuery(
                        "SELECT i.key FROM SandboxInstance i WHERE i.provider = :provider AND i.providerSandboxId = :id")
                .setParameter("provider", provider)
                .setParameter("id", providerSandboxId)
                .setMaxResults(1)
                .getResultList()
                .isEmpty();
    }
}
