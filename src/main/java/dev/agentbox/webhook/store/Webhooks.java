package dev.agentbox.webhook.store;

import dev.agentbox.agent.WebhookEvent;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.RunRecordView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * What other features call to queue webhooks that are not a run's end. Joins the caller's
 * transaction when there is one, so the interrupt and its webhook commit together.
 */
@ApplicationScoped
@Transactional
public class Webhooks {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    @Inject Clock clock;

    protected Webhooks() {}

    /** For tests outside the server: the caller owns the transaction. */
    public Webhooks(EntityManager em, Clock clock) {
        this.em = em;
        this.clock = clock;
    }

    /**
     * Queues {@code interrupt.requested} for a stored interrupt of the tenant's run {@code runId}:
     * the payload's {@code interrupt} is {@code interrupt} ({@code {"id","reason","toolCallId?",
     * "tool","arguments","expiresAt"}}). The delivery id is derived from the interrupt's {@code
     * id}: calling again for the same interrupt queues nothing new.
     *
     * @return the deliveries queued; none for a run that is unknown or not an agent's, or whose
     *     definition has no webhook for the event
     */
    public List<NewDelivery> interruptRequested(String tenant, String runId, JsonObject interrupt) {
        Optional<RunRecordView> run = new JpaRunStore(em).find(tenant, runId);
        if (run.isEmpty()) {
            return List.of();
        }
        return WebhookEvents.queue(
                em,
                tenant,
                runId,
                run.get().threadId(),
                WebhookEvent.INTERRUPT_REQUESTED,
                Optional.of(interrupt),
                "interrupt " + interrupt.getString("id", ""),
                clock.instant());
    }
}
