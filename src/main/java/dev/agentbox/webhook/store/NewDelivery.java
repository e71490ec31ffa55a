package dev.agentbox.webhook.store;

import dev.agentbox.agent.WebhookEvent;

/**
 * A post to queue: one event, by its delivery id, to one webhook url.
 *
 * @param deliveryId the {@code id} of the payload, the same for every url the event goes to
 * @param payload the JSON body, exactly as it will be posted (and signed) at every attempt
 */
public record NewDelivery(
        String deliveryId,
        String url,
        String tenant,
        String agentId,
        WebhookEvent event,
        String payload,
        java.time.Instant createdAt) {}
