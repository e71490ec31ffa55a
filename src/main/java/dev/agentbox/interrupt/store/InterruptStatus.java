package dev.agentbox.interrupt.store;

import java.util.Optional;

/**
 * Where an interrupt is. {@link #PENDING} is the only status that changes, and only once: to an
 * answer ({@link #RESOLVED}, {@link #CANCELLED}) or to {@link #EXPIRED}.
 *
 * <p>{@link #EXPIRED} is stored apart from {@link #CANCELLED} so that the decision can say why, but
 * the API shows it as what it is for a client, a cancel ({@link #apiStatus()} {@code cancelled},
 * {@link #cancelReason()} {@code expired}).
 */
public enum InterruptStatus {
    PENDING,
    RESOLVED,
    CANCELLED,
    EXPIRED;

    /** The stored name ({@code pending}, …, {@code expired}); not always what clients see. */
    public String wireName() {
        return name().toLowerCase();
    }

    /** The status a client sees: an expired interrupt is {@code cancelled}. */
    public String apiStatus() {
        return this == EXPIRED ? CANCELLED.wireName() : wireName();
    }

    /** Why a {@code cancelled} interrupt was cancelled, when not by an answer or the run's end. */
    public Optional<String> cancelReason() {
        return this == EXPIRED ? Optional.of("expired") : Optional.empty();
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
