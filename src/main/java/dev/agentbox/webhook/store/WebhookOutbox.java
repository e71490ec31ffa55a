package dev.agentbox.webhook.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The durable outbox of webhook posts, shared by every server. A post is claimed by compare-and-set
 * (the update's row count says who won), so two servers never post one row at the same time, and a
 * claim ends by itself at {@code claimUntil}: a server that dies mid-post leaves the row to another
 * once its claim has run out. Receivers may still get a row twice (a server that posted and died
 * before recording it), hence the delivery id they dedupe by. Every method is its own transaction
 * or joins the caller's: {@link #enqueue} inside a run's finishing transaction commits the run's
 * end and its webhook together.
 */
public interface WebhookOutbox {

    /**
     * Queues the posts; a (delivery id, url) already queued is left as it is (its state, attempts
     * and payload unchanged).
     */
    void enqueue(List<NewDelivery> deliveries);

    /**
     * Claims up to {@code limit} pending rows due at {@code now} (next attempt reached, no live
     * claim), oldest due first, for {@code server} until {@code now + hold}; each claim counts an
     * attempt.
     */
    List<Claimed> claim(String server, Instant now, Duration hold, int limit);

    /** Records a {@code 2xx}; {@code false} when {@code server} no longer holds the claim. */
    boolean delivered(String rowId, String server, Instant now);

    /**
     * Records a failed attempt to be retried at {@code next}; {@code false} as {@link #delivered}.
     */
    boolean retry(String rowId, String server, Instant next, String error);

    /** Gives up on the row; {@code false} as {@link #delivered}. */
    boolean failed(String rowId, String server, Instant now, String error);

    /**
     * Deletes up to {@code limit} rows that ended ({@code delivered} or {@code failed}) before
     * {@code endedBefore}, those that ended first first; pending rows are never deleted. Returns
     * how many were.
     */
    int prune(Instant endedBefore, int limit);

    /** The rows of one delivery id, one per url. */
    List<OutboxEntry> byDeliveryId(String deliveryId);
}
