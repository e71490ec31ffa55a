package dev.agentbox.webhook.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@link WebhookOutbox} on the {@code AB_WEBHOOK_OUTBOX} table (Derby and PostgreSQL alike). */
@ApplicationScoped
@Transactional
public class JpaWebhookOutbox implements WebhookOutbox {

    /** Stored error texts are cut to the column's width. */
    static final int MAX_ERROR = 500;

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaWebhookOutbox() {}

    /** For tests outside the server and for callers that own the transaction. */
    public JpaWebhookOutbox(EntityManager em) {
        this.em = em;
    }

    @Override
    public void enqueue(List<NewDelivery> deliveries) {
        for (NewDelivery d : deliveries) {
            // Already queued (a caller that queues the same event again): keep the first row, so
            // queueing again never fails the caller's transaction. Two callers at once still meet
            // the primary key, and one of them fails.
            if (em.find(OutboxRow.class, OutboxRow.rowId(d.deliveryId(), d.url())) == null) {
                em.persist(new OutboxRow(d));
            }
        }
        em.flush();
    }

    @Override
    public List<Claimed> claim(String server, Instant now, Duration hold, int limit) {
        List<OutboxRow> due =
                em.createQuery(
                                "SELECT o FROM OutboxRow o WHERE o.state = :pending"
                                        + " AND o.nextAttemptAt <= :now"
                                        + " AND (o.claimUntil IS NULL OR o.claimUntil <= :now)"
                                        + " ORDER BY o.nextAttemptAt, o.id",
                                OutboxRow.class)
                        .setParameter("pending", OutboxRow.State.PENDING)
                        .setParameter("now", now)
                        .setMaxResults(limit)
                        .getResultList();
        List<Claimed> won = new ArrayList<>();
        for (OutboxRow row : due) {
            // The compare-and-set: the same conditions as the select, so a row another server
            // claimed (or finished) since the select updates 0 rows here. On PostgreSQL the update
            // waits for that server's commit and then re-checks the conditions.
            int n =
                    em.createQuery(
                                    "UPDATE OutboxRow o SET o.claimedBy = :server, o.claimUntil = :until,"
                                            + " o.attempts = o.attempts + 1"
                                            + " WHERE o.id = :id AND o.state = :pending"
                                            + " AND o.nextAttemptAt <= :now"
                                            + " AND (o.claimUntil IS NULL OR o.claimUntil <= :now)")
                            .setParameter("server", server)
                            .setParameter("until", now.plus(hold))
                            .setParameter("id", row.id())
                            .setParameter("pending", OutboxRow.State.PENDING)
                            .setParameter("now", now)
                            .executeUpdate();
            if (n == 1) {
                em.refresh(row);
                won.add(row.claimed());
            }
        }
        return won;
    }

    @Override
    public boolean delivered(String rowId, String server, Instant now) {
        return end(rowId, server, OutboxRow.State.DELIVERED, now, null);
    }

    @Override
    public boolean failed(String rowId, String server, Instant now, String error) {
        return end(rowId, server, OutboxRow.State.FAILED, now, error);
    }

    private boolean end(
            String rowId, String server, OutboxRow.State state, Instant now, String error) {
        return em.createQuery(
                                "UPDATE OutboxRow o SET o.state = :state, o.finishedAt = :now,"
                                        + " o.lastError = :error, o.claimedBy = NULL, o.claimUntil = NULL"
                                        + " WHERE o.id = :id AND o.state = :pending AND o.claimedBy = :server")
                        .setParameter("state", state)
                        .setParameter("now", now)
                        .setParameter("error", cut(error))
                        .setParameter("id", rowId)
                        .setParameter("pending", OutboxRow.State.PENDING)
                        .setParameter("server", server)
                        .executeUpdate()
                == 1;
    }

    @Override
    public boolean retry(String rowId, String server, Instant next, String error) {
        return em.createQuery(
                                "UPDATE OutboxRow o SET o.nextAttemptAt = :next, o.lastError = :error,"
                                        + " o.claimedBy = NULL, o.claimUntil = NULL"
                                        + " WHERE o.id = :id AND o.state = :pending AND o.claimedBy = :server")
                        .setParameter("next", next)
                        .setParameter("error", cut(error))
                        .setParameter("id", rowId)
                        .setParameter("pending", OutboxRow.State.PENDING)
                        .setParameter("server", server)
                        .executeUpdate()
                == 1;
    }

    @Override
    public int prune(Instant endedBefore, int limit) {
        List<String> ids =
                em.createQuery(
                                "SELECT o.id FROM OutboxRow o WHERE o.state <> :pending"
                                        + " AND o.finishedAt < :before ORDER BY o.finishedAt",
                                String.class)
                        .setParameter("pending", OutboxRow.State.PENDING)
                        .setParameter("before", endedBefore)
                        .setMaxResults(limit)
                        .getResultList();
        if (ids.isEmpty()) {
            return 0;
        }
        return em.createQuery("DELETE FROM OutboxRow o WHERE o.id IN :ids AND o.state <> :pending")
                .setParameter("ids", ids)
                .setParameter("pending", OutboxRow.State.PENDING)
                .executeUpdate();
    }

    @Override
    public List<OutboxEntry> byDeliveryId(String deliveryId) {
        return em
                .createQuery(
                        "SELECT o FROM OutboxRow o WHERE o.deliveryId = :d ORDER BY o.url",
                        OutboxRow.class)
                .setParameter("d", deliveryId)
                .getResultList()
                .stream()
                .map(OutboxRow::view)
                .toList();
    }

    private static String cut(String error) {
        return error == null || error.length() <= MAX_ERROR ? error : error.substring(0, MAX_ERROR);
    }
}
