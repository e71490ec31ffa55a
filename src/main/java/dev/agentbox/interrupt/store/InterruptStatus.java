package dev.agentbox.interrupt.store;

import java.util.Optional;

/**
 * Where an interrupt is. {@link #PENDING} is the only status that changes, and only once: to an
 * answer ({@link #RESOLVED}, {@link #CANCELLED}) or to {@link #EXPIRED}.
 */
public enum InterruptStatus {
    PENDING,
    RESOLVED,
    CANCELLED,
    EXPIRED;

    public String wireName() {
        return name().toLowerCase();
    }

    public static Optional<InterruptStatus> of(String wire) {
        for (InterruptStatus s : values()) {
            if (s.wireName().equals(wire)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
