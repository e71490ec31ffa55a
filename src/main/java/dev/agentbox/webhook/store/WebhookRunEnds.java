package dev.agentbox.webhook.store;

import dev.agentbox.agent.WebhookEvent;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.RunEndHook;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import java.time.Instant;
import java.util.Optional;

/**
 * Queues {@code run.finished} ({@code completed}) or {@code run.failed} (any other terminal status:
 * {@code failed}, and {@code aborted}, which is how a cancelled or expired run ends) in the very
 * transaction that records a run's end, so a run never ends without its webhook nor the reverse.
 */
@ApplicationScoped
public class WebhookRunEnds implements RunEndHook {

    @Override
    public void ended(EntityManager em, RunRef run, RunStatus status, Instant finishedAt) {
        Optional<RunRecordView> r = new JpaRunStore(em).findById(run);
        if (r.isEmpty()) {
            return;
        }
        WebhookEvent event =
                status == RunStatus.COMPLETED ? WebhookEvent.RUN_FINISHED : WebhookEvent.RUN_FAILED;
        WebhookEvents.queue(
                em,
                r.get().tenant(),
                r.get().runId(),
                r.get().threadId(),
                event,
                Optional.empty(),
                "end",
                finishedAt);
    }
}
