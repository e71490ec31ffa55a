package dev.agentbox.webhook.store;

import dev.agentbox.agent.WebhookEvent;
import java.time.Instant;

/** A row of the outbox as it stands (for inspection and tests). */
public record OutboxEntry(
        String rowId,
        String deliveryId,
        String url,
        WebhookEvent event,
        String payload,
        OutboxRow.State state,
        int attempts,
        Instant nextAttemptAt,
        String claimedBy,
        Instant claimUntil,
        String lastError,
        Instant createdAt,
        Instant finishedAt) {}
