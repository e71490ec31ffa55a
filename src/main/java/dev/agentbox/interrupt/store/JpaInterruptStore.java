package dev.agentbox.interrupt.store;

import dev.agentbox.platform.CanonicalJson;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** {@link InterruptStore} on the {@code AB_INTERRUPT} table. */
@ApplicationScoped
@Transactional
public class JpaInterruptStore implements InterruptStore {

    private static final int SLICE = 200;

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    @Inject Instance<InterruptOpenHook> openHooks;

    /** Outside the server: the hooks given to the constructor. */
    private Iterable<InterruptOpenHook> givenHooks = List.of();

    protected JpaInterruptStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaInterruptStore(EntityManager em) {
        this.em = em;
    }

    /** For tests outside the server, with the hooks a new interrupt runs. */
    public JpaInterruptStore(EntityManager em, List<InterruptOpenHook> hooks) {
        this.em = em;
        this.givenHooks = List.copyOf(hooks);
    }

    @Override
    public Interrupt open(NewInterrupt wait) {
        Optional<Interrupt> existing = findByCallKey(wait.run(), wait.callKey());
        if (existing.isPresent()) {
            return existing.get();
        }
        InterruptRow row = new InterruptRow(wait);
        em.persist(row);
        // The insert is the compare-and-set of servers opening the same call: a loser fails here on
        // the unique call key, so only the winner reaches the hooks (its webhook commits with it).
        em.flush();
        Interrupt opened = row.view();
        for (InterruptOpenHook hook : openHooks != null ? openHooks : givenHooks) {
            hook.opened(em, opened);
        }
        return opened;
    }

    @Override
    public Optional<Interrupt> find(RunRef run, String id) {
        return em
                .createQuery(
                        "SELECT i FROM InterruptRow i WHERE i.runPk = :pk AND i.id = :id",
                        InterruptRow.class)
                .setParameter("pk", run.id())
                .setParameter("id", id)
                .getResultList()
                .stream()
                .findFirst()
                .map(InterruptRow::view);
    }

    @Override
    public Optional<Interrupt> findByCallKey(RunRef run, String callKey) {
        return em
                .createQuery(
                        "SELECT i FROM InterruptRow i WHERE i.runPk = :pk AND i.callKey = :key",
                        InterruptRow.class)
                .setParameter("pk", run.id())
                .setParameter("key", callKey)
                .getResultList()
                .stream()
                .findFirst()
                .map(InterruptRow::view);
    }

    @Override
    public List<Interrupt> findAll(Collection<String> ids) {
        List<Interrupt> found = new ArrayList<>();
        List<String> all = List.copyOf(ids);
        // In slices: one IN list per query stays well inside every database's parameter limit.
        for (int from = 0; from < all.size(); from += SLICE) {
            em.createQuery("SELECT i FROM InterruptRow i WHERE i.id IN :ids", InterruptRow.class)
                    .setParameter("ids", all.subList(from, Math.min(all.size(), from + SLICE)))
                    .getResultList()
                    .forEach(row -> found.add(row.view()));
        }
        return found;
    }

    @Override
    public List<Interrupt> pending(RunRef run) {
        return em
                .createQuery(
                        "SELECT i FROM InterruptRow i WHERE i.runPk = :pk AND i.status = :pending"
                                + " ORDER BY i.createdAt, i.id",
                        InterruptRow.class)
                .setParameter("pk", run.id())
                .setParameter("pending", InterruptStatus.PENDING)
                .getResultList()
                .stream()
                .map(InterruptRow::view)
                .toList();
    }

    @Override
    public Answer answer(
            RunRef run,
            String id,
            InterruptStatus status,
            Optional<JsonObject> payload,
            Instant now) {
        if (status != InterruptStatus.RESOLVED && status != InterruptStatus.CANCELLED) {
            throw new IllegalArgumentException("an answer is resolved or cancelled, not " + status);
        }
        // The compare-and-set: of two servers answering at once, the row count tells each one
        // whether it won; the loser then reads what the winner wrote.
        int won =
                em.createQuery(
                                "UPDATE InterruptRow i SET i.status = :status, i.payloadJson = :payload,"
                                        + " i.answeredAt = :now WHERE i.runPk = :pk AND i.id = :id"
                                        + " AND i.status = :pending AND i.expiresAt > :now")
                        .setParameter("status", status)
                        .setParameter("payload", payload.map(JsonObject::toString).orElse(null))
                        .setParameter("now", now)
                        .setParameter("pk", run.id())
                        .setParameter("id", id)
                        .setParameter("pending", InterruptStatus.PENDING)
                        .executeUpdate();
        Optional<Interrupt> after = find(run, id);
        if (after.isEmpty()) {
            return new Answer(Answer.Outcome.NOT_FOUND, after);
        }
        if (won == 1) {
            return new Answer(Answer.Outcome.ANSWERED, after);
        }
        Interrupt i = after.get();
        if (i.pending()) {
            // Past its expiry and not yet marked: the answer is too late, and says so for good.
            setStatus(List.of(id), InterruptStatus.EXPIRED, now);
            return new Answer(Answer.Outcome.CONFLICT, find(run, id));
        }
        boolean same =
                i.status() == status
                        && i.payload()
                                .map(CanonicalJson::of)
                                .equals(payload.map(CanonicalJson::of));
        return new Answer(same ? Answer.Outcome.ALREADY : Answer.Outcome.CONFLICT, after);
    }

    @Override
    public int cancelPending(RunRef run, Instant now) {
        return em.createQuery(
                        "UPDATE InterruptRow i SET i.status = :cancelled, i.answeredAt = :now"
                                + " WHERE i.runPk = :pk AND i.status = :pending")
                .setParameter("cancelled", InterruptStatus.CANCELLED)
                .setParameter("now", now)
                .setParameter("pk", run.id())
                .setParameter("pending", InterruptStatus.PENDING)
                .executeUpdate();
    }

    @Override
    public int expireDue(Instant now, int max) {
        List<String> due =
                em.createQuery(
                                "SELECT i.id FROM InterruptRow i WHERE i.status = :pending"
                                        + " AND i.expiresAt <= :now ORDER BY i.expiresAt",
                                String.class)
                        .setParameter("pending", InterruptStatus.PENDING)
                        .setParameter("now", now)
                        .setMaxResults(max)
                        .getResultList();
        return setStatus(due, InterruptStatus.EXPIRED, now);
    }

    @Override
    public int cancelOfEndedRuns(Instant now, int max) {
        List<String> orphaned =
                em.createQuery(
                                "SELECT i.id FROM InterruptRow i, RunRecord r WHERE r.runPk = i.runPk"
                                        + " AND i.status = :pending AND r.status IN :ended",
                                String.class)
                        .setParameter("pending", InterruptStatus.PENDING)
                        .setParameter(
                                "ended",
                                Arrays.stream(RunStatus.values())
                                        .filter(RunStatus::isTerminal)
                                        .toList())
                        .setMaxResults(max)
                        .getResultList();
        return setStatus(orphaned, InterruptStatus.CANCELLED, now);
    }

    /** Moves those of {@code ids} still pending to {@code status}; how many moved. */
    private int setStatus(List<String> ids, InterruptStatus status, Instant now) {
        if (ids.isEmpty()) {
            return 0;
        }
        int moved =
                em.createQuery(
                                "UPDATE InterruptRow i SET i.status = :status, i.answeredAt = :now"
                                        + " WHERE i.id IN :ids AND i.status = :pending")
                        .setParameter("status", status)
                        .setParameter("now", now)
                        .setParameter("ids", ids)
                        .setParameter("pending", InterruptStatus.PENDING)
                        .executeUpdate();
        // A bulk update bypasses the persistence context: rows read before it would read stale.
        em.clear();
        return moved;
    }
}
