package dev.agentbox.agent;

import java.util.Optional;

/** What a webhook can be told: its wire names are the {@code events} of a definition's webhook. */
public enum WebhookEvent {
    /** A run of the agent waits for a person (an interrupt was stored). */
    INTERRUPT_REQUESTED("interrupt.requested"),
    /** A run of the agent ended {@code completed}. */
    RUN_FINISHED("run.finished"),
    /** A run of the agent ended in any other terminal status ({@code failed}, {@code aborted}). */
    RUN_FAILED("run.failed");

    private final String wireName;

    WebhookEvent(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** The event named {@code wireName} exactly; empty for any other name. */
    public static Optional<WebhookEvent> of(String wireName) {
        for (WebhookEvent e : values()) {
            if (e.wireName.equals(wireName)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
