package dev.agentbox.webhook.store;

import dev.agentbox.agent.AgentTemplate;
import dev.agentbox.agent.Webhook;
import dev.agentbox.agent.WebhookEvent;
import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.JpaAgentStore;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.agent.store.StoredAgent;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.persistence.EntityManager;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Queues one event of one run to the webhooks of the run's agent definition that want it, in the
 * transaction of {@code em} (the caller's): {@code {"id","event","tenant?","agentId","threadId",
 * "runId","interrupt?","at"}}.
 *
 * <p>Invariants: only runs started through an agent definition ({@code POST /agents/{agentId}},
 * which records an agent turn) have webhooks; the delivery id is derived from what the event is
 * about (the run and the event, or the interrupt), so queueing the same event again can never queue
 * a second delivery; {@code tenant} is left out in single-tenant dev mode (tenant {@value
 * #DEV_TENANT}).
 */
final class WebhookEvents {

    private static final Logger LOG = Logger.getLogger(WebhookEvents.class.getName());

    static final String DEV_TENANT = "default";

    private WebhookEvents() {}

    /**
     * Queues {@code event} about run {@code runId} of {@code tenant}; does nothing when the run was
     * not started through a definition, the definition is gone, or none of its webhooks wants it.
     *
     * @param key what makes this event this one (the run's end, an interrupt's id)
     * @return the deliveries queued (one per webhook url)
     */
    static List<NewDelivery> queue(
            EntityManager em,
            String tenant,
            String runId,
            String threadId,
            WebhookEvent event,
            Optional<JsonObject> interrupt,
            String key,
            Instant at) {
        Optional<AgentTurn> turn = new JpaAgentTurnStore(em).find(tenant, runId);
        if (turn.isEmpty()) {
            return List.of();
        }
        String agentId = turn.get().agentId();
        Optional<StoredAgent> stored = new JpaAgentStore(em).find(tenant, agentId);
        if (stored.isEmpty()) {
            return List.of();
        }
        List<Webhook> hooks;
        try {
            hooks =
                    AgentTemplate.fromJson(
                                    Json.createReader(
                                                    new StringReader(stored.get().definitionJson()))
                                            .readObject())
                            .webhooks();
        } catch (RuntimeException e) {
            // Stored data that no longer reads must not fail the run's end it rides on.
            LOG.warning(
                    () ->
                            "webhooks: definition "
                                    + agentId
                                    + " does not read back, no "
                                    + event.wireName()
                                    + " for run "
                                    + runId
                                    + ": "
                                    + e.getMessage());
            return List.of();
        }
        String deliveryId =
                UUID.nameUUIDFromBytes(
                                (tenant + "\n" + runId + "\n" + event.wireName() + "\n" + key)
                                        .getBytes(StandardCharsets.UTF_8))
                        .toString();
        JsonObjectBuilder p =
                Json.createObjectBuilder().add("id", deliveryId).add("event", event.wireName());
        if (!DEV_TENANT.equals(tenant)) {
            p.add("tenant", tenant);
        }
        p.add("agentId", agentId).add("threadId", threadId).add("runId", runId);
        interrupt.ifPresent(i -> p.add("interrupt", i));
        String payload = p.add("at", at.toString()).build().toString();
        List<NewDelivery> out =
                hooks.stream()
                        .filter(h -> h.wants(event))
                        .map(h -> h.url().toString())
                        .distinct()
                        .map(
                                url ->
                                        new NewDelivery(
                                                deliveryId,
                                                url,
                                                tenant,
                                                agentId,
                                                event,
                                                payload,
                                                at))
                        .toList();
        if (!out.isEmpty()) {
            new JpaWebhookOutbox(em).enqueue(out);
        }
        return out;
    }
}
