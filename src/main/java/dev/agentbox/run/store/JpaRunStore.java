package dev.agentbox.run.store;

import dev.agentbox.platform.PageCursor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * {@link RunStore} on the {@code AB_RUN} table (and {@code AB_RUN_CLAIM} for creation and the
 * epoch).
 */
@ApplicationScoped
@Transactional
public class JpaRunStore implements RunStore {

    /** Every run with its claim row (there is always exactly one), so views carry the epoch. */
    private static final String SELECT_WITH_EPOCH =
            "SELECT r, c.version FROM RunRecord r, DriverClaim c WHERE c.runPk = r.runPk";

    static final List<RunStatus> LIVE = List.of(RunStatus.RUNNING, RunStatus.INTERRUPTED);

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaRunStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaRunStore(EntityManager em) {
        this.em = em;
    }

    @Override
    public Optional<RunRecordView> create(NewRun run) {
        if (!em.createQuery(
                        "SELECT r.runPk FROM RunRecord r WHERE r.tenant = :tenant AND r.runId = :runId")
                .setParameter("tenant", run.tenant())
                .setParameter("runId", run.runId())
                .setMaxResults(1)
                .getResultList()
                .isEmpty()) {
            return Optional.empty();
        }
        RunRef ref = new RunRef(UUID.randomUUID().toString());
        RunRecord record = new RunRecord(ref, run);
        em.persist(record);
        // The claim row exists from the start at version 0 ("never claimed"): JPA would insert
        // a versioned entity at version 1, which would read as epoch 1 before any claim.
        em.createNativeQuery(
                        "INSERT INTO AB_RUN_CLAIM (RUN_PK, NODE_ID, VERSION) VALUES (?, NULL, ?)")
                .setParameter(1, ref.id())
                .setParameter(2, DriverClaim.UNCLAIMED)
                .executeUpdate();
        em.flush();
        return Optional.of(record.view(OptionalLong.empty()));
    }

    @Override
    public Optional<RunRecordView> find(String tenant, String runId) {
        return first(
                em.createQuery(
                                SELECT_WITH_EPOCH + " AND r.tenant = :tenant AND r.runId = :runId",
                                Object[].class)
                        .setParameter("tenant", tenant)
                        .setParameter("runId", runId));
    }

    @Override
    public Optional<RunRecordView> findById(RunRef run) {
        return first(
                em.createQuery(SELECT_WITH_EPOCH + " AND r.runPk = :pk", Object[].class)
                        .setParameter("pk", run.id()));
    }

    @Override
    public boolean setSandboxKey(RunRef run, Optional<String> sandboxKey) {
        sandboxKey.ifPresent(k -> NewRun.requireLength("sandboxKey", k, NewRun.MAX_SANDBOX_KEY));
        return setField(run, "sandboxKey", sandboxKey.orElse(null));
    }

    @Override
    public boolean setDetachedSince(RunRef run, Optional<Instant> detachedSince) {
        return setField(run, "detachedSince", detachedSince.orElse(null));
    }

    @Override
    public boolean setCancelRequested(RunRef run, Optional<Boolean> cancelRequested) {
        return setField(run, "cancelRequested", cancelRequested.orElse(null));
    }

    @Override
    public boolean setUsage(RunRef run, Optional<JsonObject> usage) {
        return setField(run, "usageJson", usage.map(RunRecord::usageText).orElse(null));
    }

    /**
     * One UPDATE of one column (and the row version), never a read-modify-write of the entity: a
     * concurrent write of another field (say a cancel request from another server while this server
     * records a detach) cannot be overwritten with a stale value, and the claim row is not touched
     * at all.
     */
    private boolean setField(RunRef run, String field, Object value) {
        String assignment = value == null ? "NULL" : ":value";
        var update =
                em.createQuery(
                                "UPDATE RunRecord r SET r."
                                        + field
                                        + " = "
                                        + assignment
                                        + ", r.version = r.version + 1 WHERE r.runPk = :pk")
                        .setParameter("pk", run.id());
        if (value != null) {
            update.setParameter("value", value);
        }
        return update.executeUpdate() == 1;
    }

    @Override
    public Optional<RunRecordView> findActiveRun(String tenant, String threadId) {
        return first(
                em.createQuery(
                                SELECT_WITH_EPOCH
                                        + " AND r.tenant = :tenant AND r.threadId = :threadId AND r.status IN :live"
                                        + " ORDER BY r.startedAt DESC, r.runId DESC",
                                Object[].class)
                        .setParameter("tenant", tenant)
                        .setParameter("threadId", threadId)
                        .setParameter("live", LIVE)
                        .setMaxResults(1));
    }

    @Override
    public List<RunRecordView> listReclaimable(
            Instant now, Duration ttl, Optional<ReclaimCursor> after, int limit) {
        TypedQuery<Object[]> query =
                em.createQuery(
                                SELECT_WITH_EPOCH
                                        + " AND r.status IN :live AND r.detachedSince IS NOT NULL AND r.detachedSince <= :cutoff"
                                        + (after.isPresent()
                                                ? " AND (r.detachedSince > :ds OR (r.detachedSince = :ds AND r.runPk > :pk))"
                                                : "")
                                        + " ORDER BY r.detachedSince, r.runPk",
                                Object[].class)
                        .setParameter("live", LIVE)
                        .setParameter("cutoff", now.minus(ttl))
                        .setMaxResults(Limits.require(limit));
        after.ifPresent(
                c -> query.setParameter("ds", c.detachedSince()).setParameter("pk", c.run().id()));
        return views(query);
    }

    @Override
    public List<RunRecordView> listLive(Instant startedBefore, int limit) {
        return views(
                em.createQuery(
                                SELECT_WITH_EPOCH
                                        + " AND r.status IN :live AND r.startedAt <= :before ORDER BY r.startedAt, r.runPk",
                                Object[].class)
                        .setParameter("live", LIVE)
                        .setParameter("before", startedBefore)
                        .setMaxResults(Limits.require(limit)));
    }

    @Override
    public List<RunRecordView> liveRunsUsing(String tenant, String sandboxKey, int limit) {
        return views(
                em.createQuery(
                                SELECT_WITH_EPOCH
                                        + " AND r.tenant = :tenant AND r.sandboxKey = :key AND r.status IN :live ORDER BY r.runPk",
                                Object[].class)
                        .setParameter("tenant", tenant)
                        .setParameter("key", sandboxKey)
                        .setParameter("live", LIVE)
                        .setMaxResults(Limits.require(limit)));
    }

    @Override
    public List<RunRecordView> list(
            String tenant,
            Optional<String> threadId,
            Optional<RunStatus> status,
            Optional<PageCursor> after,
            int limit) {
        StringBuilder jpql = new StringBuilder(SELECT_WITH_EPOCH).append(" AND r.tenant = :tenant");
        threadId.ifPresent(t -> jpql.append(" AND r.threadId = :threadId"));
        status.ifPresent(s -> jpql.append(" AND r.status = :status"));
        after.ifPresent(
                c ->
                        jpql.append(
                                " AND (r.startedAt < :afterAt OR (r.startedAt = :afterAt AND r.runId < :afterId))"));
        jpql.append(" ORDER BY r.startedAt DESC, r.runId DESC");
        TypedQuery<Object[]> query =
                em.createQuery(jpql.toString(), Object[].class)
                        .setParameter("tenant", tenant)
                        .setMaxResults(Limits.require(limit));
        threadId.ifPresent(t -> query.setParameter("threadId", t));
        status.ifPresent(s -> query.setParameter("status", s));
        after.ifPresent(c -> query.setParameter("afterAt", c.at()).setParameter("afterId", c.id()));
        return views(query);
    }

    private static Optional<RunRecordView> first(TypedQuery<Object[]> query) {
        return views(query.setMaxResults(1)).stream().findFirst();
    }

    private static List<RunRecordView> views(TypedQuery<Object[]> query) {
        return query.getResultList().stream()
                .map(
                        row ->
                                ((RunRecord) row[0])
                                        .view(DriverClaim.epochOf(((Number) row[1]).longValue())))
                .toList();
    }
}
