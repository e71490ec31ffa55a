package dev.agentbox.webhook.store;

import dev.agentbox.agent.WebhookEvent;
import java.time.Instant;

/**
 * A delivery this server holds the claim of and may post now.
 *
 * @param attempts posts begun, this one included (1 on the first)
 */
public record Claimed(
        String rowId,
        String deliveryId,
        String url,
        String tenant,
        String agentId,
        WebhookEvent event,
        String payload,
        int attempts,
        Instant createdAt) {}
