package dev.agentbox.webhook.store;

import dev.agentbox.agent.Webhook;
import dev.agentbox.agent.WebhookEvent;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Lob;
import jakarta.persistence.Table;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/**
 * One webhook post to make (table {@code AB_WEBHOOK_OUTBOX}): a delivery id (what receivers dedupe
 * by) to one url.
 *
 * <p>Invariants: the primary key is derived from {@code (DELIVERY_ID, URL)}, so one delivery is
 * queued at most once per url whatever the retries of the code that queues it; {@code STATE} leaves
 * {@code PENDING} once, for {@code DELIVERED} or {@code FAILED}; a row is being posted only while
 * {@code CLAIMED_BY} is set and {@code CLAIM_UNTIL} is in the future, and only the holder of that
 * claim may record the post's outcome ({@link JpaWebhookOutbox}).
 */
@Entity
@Table(
        name = "AB_WEBHOOK_OUTBOX",
        indexes = @Index(name = "AB_WEBHOOK_OUTBOX_DUE_IX", columnList = "STATE, NEXT_ATTEMPT_AT"))
public class OutboxRow {

    /** Where a row is in its life. */
    public enum State {
        PENDING,
        DELIVERED,
        FAILED
    }

    @Id
    @Column(name = "ID", length = 36)
    private String id;

    @Column(name = "DELIVERY_ID", nullable = false, length = 36)
    private String deliveryId;

    @Column(name = "URL", nullable = false, length = Webhook.MAX_URL_LENGTH)
    private String url;

    @Column(name = "TENANT", nullable = false, length = 128)
    private String tenant;

    @Column(name = "AGENT_ID", nullable = false, length = 200)
    private String agentId;

    @Column(name = "EVENT", nullable = false, length = 32)
    private String event;

    @Lob
    @Column(name = "PAYLOAD", nullable = false)
    private String payload;

    @Enumerated(EnumType.STRING)
    @Column(name = "STATE", nullable = false, length = 16)
    private State state;

    /** Posts begun (counted when claimed, so a server that dies mid-post still spends one). */
    @Column(name = "ATTEMPTS", nullable = false)
    private int attempts;

    @Column(name = "NEXT_ATTEMPT_AT", nullable = false)
    private Instant nextAttemptAt;

    @Column(name = "CLAIMED_BY", length = 128)
    private String claimedBy;

    @Column(name = "CLAIM_UNTIL")
    private Instant claimUntil;

    @Column(name = "LAST_ERROR", length = 500)
    private String lastError;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Column(name = "FINISHED_AT")
    private Instant finishedAt;

    protected OutboxRow() {}

    OutboxRow(NewDelivery d) {
        this.id = rowId(d.deliveryId(), d.url());
        this.deliveryId = d.deliveryId();
        this.url = d.url();
        this.tenant = d.tenant();
        this.agentId = d.agentId();
        this.event = d.event().wireName();
        this.payload = d.payload();
        this.state = State.PENDING;
        this.attempts = 0;
        this.nextAttemptAt = d.createdAt();
        this.createdAt = d.createdAt();
    }

    /** The row id of one delivery to one url: the same inputs give the same id. */
    static String rowId(String deliveryId, String url) {
        return UUID.nameUUIDFromBytes((deliveryId + "\n" + url).getBytes(StandardCharsets.UTF_8))
                .toString();
    }

    String id() {
        return id;
    }

    Claimed claimed() {
        return new Claimed(
                id,
                deliveryId,
                url,
                tenant,
                agentId,
                WebhookEvent.of(event).orElseThrow(),
                payload,
                attempts,
                createdAt);
    }

    OutboxEntry view() {
        return new OutboxEntry(
                id,
                deliveryId,
                url,
                WebhookEvent.of(event).orElseThrow(),
                payload,
                state,
                attempts,
                nextAttemptAt,
                claimedBy,
                claimUntil,
                lastError,
                createdAt,
                finishedAt);
    }
}
