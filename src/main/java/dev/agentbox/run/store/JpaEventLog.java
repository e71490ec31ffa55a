package dev.agentbox.run.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.logging.Logger;

/** {@link EventLog} on the {@code AB_RUN_EVENT} table, fenced by {@code AB_RUN_CLAIM}. */
@ApplicationScoped
@Transactional
public class JpaEventLog implements EventLog {

    private static final Logger LOG = Logger.getLogger(JpaEventLog.class.getName());

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    @Inject Instance<RunEndHook> endHooks;

    /** Outside the server: the hooks given to the constructor. */
    private Iterable<RunEndHook> givenHooks = List.of();

    /** Runs inside a fenced write after its epoch check, before its write (tests pause here). */
    private Runnable afterFenceCheck = () -> {};

    protected JpaEventLog() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaEventLog(EntityManager em) {
        this.em = em;
    }

    /** For tests outside the server, with the hooks a run's end runs. */
    public JpaEventLog(EntityManager em, List<RunEndHook> hooks) {
        this.em = em;
        this.givenHooks = List.copyOf(hooks);
    }

    /** For fence tests: {@code afterFenceCheck} runs between a passed epoch check and the write. */
    JpaEventLog(EntityManager em, Runnable afterFenceCheck) {
        this.em = em;
        this.afterFenceCheck = afterFenceCheck;
    }

    @Override
    public List<LoggedChunk> append(RunRef run, long epoch, List<JsonObject> chunks) {
        List<PreparedChunk> prepared = PreparedChunk.all(chunks);
        DriverClaim claim = JpaClaimStore.lock(em, run);
        if (claim == null || claim.version() == DriverClaim.UNCLAIMED || claim.version() != epoch) {
            throw new StaleEpochException(
                    run,
                    epoch,
                    claim == null ? OptionalLong.empty() : DriverClaim.epochOf(claim.version()));
        }
        afterFenceCheck.run();
        // Under the claim lock no other writer of this run can be between its MAX and its
        // commit, so last + 1 … is free (the primary key would fail the batch otherwise).
        long seq = lastSeq(run);
        List<LoggedChunk> logged = new ArrayList<>(prepared.size());
        for (PreparedChunk chunk : prepared) {
            seq++;
            em.persist(
                    new RunEvent(
                            run.id(),
                            seq,
                            chunk.type(),
                            chunk.json(),
                            chunk.fingerprint(),
                            chunk.service()));
            logged.add(chunk.at(seq));
        }
        em.flush();
        return logged;
    }

    @Override
    public FinishResult finishRun(
            RunRef run,
            long epoch,
            RunStatus status,
            Instant finishedAt,
            Optional<RunError> error) {
        if (!status.isTerminal()) {
            throw new IllegalArgumentException("not a terminal status: " + status.wireName());
        }
        DriverClaim claim = JpaClaimStore.lock(em, run);
        if (claim == null || claim.version() == DriverClaim.UNCLAIMED || claim.version() != epoch) {
            LOG.warning(
                    () ->
                            "terminal update of run "
                                    + run.id()
                                    + " to "
                                    + status.wireName()
                                    + " dropped: epoch "
                                    + epoch
                                    + " is stale (current "
                                    + (claim == null ? "none" : String.valueOf(claim.version()))
                                    + ")");
            return FinishResult.STALE_EPOCH;
        }
        afterFenceCheck.run();
        String errorAssignment =
                error.isPresent()
                        ? "r.errorMessage = :message, r.errorCode = "
                                + (error.get().code().isPresent() ? ":code" : "NULL")
                        : "r.errorMessage = NULL, r.errorCode = NULL";
        var update =
                em.createQuery(
                                "UPDATE RunRecord r SET r.status = :status, r.finishedAt = :finishedAt, "
                                        + errorAssignment
                                        + ", r.version = r.version + 1 WHERE r.runPk = :pk AND r.status IN :live")
                        .setParameter("status", status)
                        .setParameter("finishedAt", finishedAt)
                        .setParameter("pk", run.id())
                        .setParameter("live", JpaRunStore.LIVE);
        error.ifPresent(
                e -> {
                    update.setParameter("message", e.message());
                    e.code().ifPresent(code -> update.setParameter("code", code));
                });
        if (update.executeUpdate() != 1) {
            return FinishResult.ALREADY_TERMINAL;
        }
        // Same transaction: the run's end and what must follow it (webhooks) commit together.
        for (RunEndHook hook : endHooks != null ? endHooks : givenHooks) {
            hook.ended(em, run, status, finishedAt);
        }
        return FinishResult.FINISHED;
    }

    @Override
    public List<LoggedChunk> read(RunRef run, long afterSeq, int limit) {
        return em
                .createQuery(
                        "SELECT e.seq, e.type, e.json FROM RunEvent e WHERE e.runPk = :pk AND e.seq > :after"
                                + " ORDER BY e.seq",
                        Object[].class)
                .setParameter("pk", run.id())
                .setParameter("after", afterSeq)
                .setMaxResults(Limits.require(limit))
                .getResultList()
                .stream()
                .map(
                        row ->
                                new LoggedChunk(
                                        ((Number) row[0]).longValue(),
                                        (String) row[1],
                                        (String) row[2]))
                .toList();
    }

    @Override
    public long size(RunRef run) {
        return em.createQuery("SELECT COUNT(e) FROM RunEvent e WHERE e.runPk = :pk", Long.class)
                .setParameter("pk", run.id())
                .getSingleResult();
    }

    @Override
    public long lastSeq(RunRef run) {
        Number max =
                em.createQuery(
                                "SELECT MAX(e.seq) FROM RunEvent e WHERE e.runPk = :pk",
                                Number.class)
                        .setParameter("pk", run.id())
                        .getSingleResult();
        return max == null ? 0 : max.longValue();
    }

    @Override
    public List<StoredChunk> fingerprints(RunRef run) {
        return em
                .createQuery(
                        "SELECT e.type, e.fingerprint, e.service FROM RunEvent e WHERE e.runPk = :pk"
                                + " ORDER BY e.seq",
                        Object[].class)
                .setParameter("pk", run.id())
                .getResultList()
                .stream()
                .map(
                        row ->
                                new StoredChunk(
                                        (String) row[0],
                                        (String) row[1],
                                        Boolean.TRUE.equals(row[2])))
                .toList();
    }
}
