package dev.agentbox.webhook.store;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptOpenHook;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Clock;

/**
 * Queues {@code interrupt.requested} in the very transaction that stores a new interrupt, so an
 * interrupt is never stored without its webhook nor the reverse, and one interrupt queues one
 * delivery however many servers asked for it ({@link InterruptOpenHook}).
 */
@ApplicationScoped
public class WebhookInterrupts implements InterruptOpenHook {

    @Inject Clock clock;

    protected WebhookInterrupts() {}

    /** For tests outside the server. */
    public WebhookInterrupts(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void opened(EntityManager em, Interrupt interrupt) {
        new Webhooks(em, clock)
                .interruptRequested(interrupt.tenant(), interrupt.runId(), interrupt.toJson());
    }
}
