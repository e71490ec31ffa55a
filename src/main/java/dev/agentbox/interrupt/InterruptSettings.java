package dev.agentbox.interrupt;

import java.time.Duration;

/**
 * How interrupts wait.
 *
 * @param ttl how long an interrupt waits for an answer ({@code agentbox.interrupts.ttl-ms})
 * @param poll how often a waiting call reads the store for an answer another server wrote ({@code
 *     agentbox.interrupts.poll-ms})
 * @param maxWaits the most calls that wait on one server at once ({@code
 *     agentbox.interrupts.max-waits}); a call over it is refused rather than queued
 */
public record InterruptSettings(Duration ttl, Duration poll, int maxWaits) {
    public InterruptSettings {
        if (ttl.isNegative()
                || ttl.isZero()
                || poll.isNegative()
                || poll.isZero()
                || maxWaits < 1) {
            throw new IllegalArgumentException("interrupt settings must be positive");
        }
    }
}
