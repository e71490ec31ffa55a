package dev.agentbox.sandbox.store;

import dev.agentbox.platform.PageCursor;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link SandboxInstanceStore} on the {@code AB_SANDBOX_INSTANCE} table: writes and lists through
 * JPA, the lookup by key — once per sandbox request — as one plain SELECT on the non-transactional
 * datasource.
 */
@ApplicationScoped
public class JpaSandboxInstanceStore implements SandboxInstanceStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    @Resource(lookup = "jdbc/agentbox-nontx")
    DataSource reads;

    protected JpaSandboxInstanceStore() {}

    /**
     * For tests outside the server: the caller owns the transaction around each call; {@code reads}
     * serves {@link #find} and must reach the same database.
     */
    public JpaSandboxInstanceStore(EntityManager em, DataSource reads) {
        this.em = em;
        this.reads = reads;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads the committed row through the non-transactional datasource, which never enlists in a
     * caller's transaction. Why not {@code em.find}: outside a transaction it builds a persistence
     * context and a unit of work for one row, which cost about as much as the query on every
     * sandbox request. It carries no {@code @Transactional} (unlike the writes and lists): even
     * {@code NOT_SUPPORTED} runs the transaction interceptor, a suspend and a local transaction
     * around one SELECT on every sandbox request.
     */
    @Override
    public Optional<SandboxInstance> find(String tenant, String key) {
        try (Connection c = reads.getConnection();
                PreparedStatement s = c.prepareStatement(FIND)) {
            s.setString(1, key);
            s.setString(2, tenant);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(restore(r)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("sandbox lookup failed: " + e.getMessage(), e);
        }
    }

    private static final String FIND =
            "SELECT SANDBOX_KEY, TENANT, PROVIDER, PROVIDER_SANDBOX_ID, THREAD_ID, SNAPSHOT_ID,"
                    + " CREATED_AT, LAST_USED_AT, KEEP_ALIVE_MS, SECRETS_INSTALLED, ENV_JSON, IMAGE,"
                    + " PORTS, VERSION, SECRET_NAMES"
                    + " FROM AB_SANDBOX_INSTANCE WHERE SANDBOX_KEY = ? AND TENANT = ?";

    private static SandboxInstance restore(ResultSet r) throws SQLException {
        return SandboxInstance.restore(
                r.getString(1),
                r.getString(2),
                r.getString(3),
                r.getString(4),
                r.getString(5),
                r.getString(6),
                instant(r.getTimestamp(7)),
                instant(r.getTimestamp(8)),
                r.getLong(9),
                r.getBoolean(10),
                r.getString(15),
                r.getString(11),
                r.getString(12),
                r.getString(13),
                r.getLong(14));
    }

    /** The instant of a TIMESTAMP column as JPA wrote it (see the store contract's time zones). */
    private static Instant instant(Timestamp t) {
        return t.toInstant();
    }

    @Override
    @Transactional
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
    @Transactional
    public boolean delete(String tenant, String key) {
        return em.createQuery(
                                "DELETE FROM SandboxInstance i WHERE i.key = :key AND i.tenant = :tenant")
                        .setParameter("key", key)
                        .setParameter("tenant", tenant)
                        .executeUpdate()
                == 1;
    }

    @Override
    @Transactional
    public List<SandboxInstance> list(String tenant) {
        return em.createQuery(
                        "SELECT i FROM SandboxInstance i WHERE i.tenant = :tenant ORDER BY i.createdAt, i.key",
                        SandboxInstance.class)
                .setParameter("tenant", tenant)
                .getResultList();
    }

    @Override
    @Transactional
    public List<SandboxInstance> page(String tenant, Optional<PageCursor> after, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1: " + limit);
        }
        TypedQuery<SandboxInstance> query =
                em.createQuery(
                                "SELECT i FROM SandboxInstance i WHERE i.tenant = :tenant"
                                        + (after.isPresent()
                                                ? " AND (i.createdAt > :afterAt OR (i.createdAt = :afterAt AND i.key > :afterKey))"
                                                : "")
                                        + " ORDER BY i.createdAt, i.key",
                                SandboxInstance.class)
                        .setParameter("tenant", tenant)
                        .setMaxResults(limit);
        after.ifPresent(
                c -> query.setParameter("afterAt", c.at()).setParameter("afterKey", c.id()));
        return query.getResultList();
    }

    @Override
    @Transactional
    public List<SandboxInstance> listAll(int limit) {
        return em.createQuery(
                        "SELECT i FROM SandboxInstance i ORDER BY i.createdAt, i.key",
                        SandboxInstance.class)
                .setMaxResults(Math.max(1, limit))
                .getResultList();
    }

    @Override
    @Transactional
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
    @Transactional
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
