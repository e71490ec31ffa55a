package dev.agentbox.interrupt.store;

import java.util.Optional;

/**
 * What {@link InterruptStore#answer} did.
 *
 * @param interrupt the interrupt as it is after the call; empty exactly for {@link
 *     Outcome#NOT_FOUND}
 */
public record Answer(Outcome outcome, Optional<Interrupt> interrupt) {

    public enum Outcome {
        /** This call answered the pending interrupt. */
        ANSWERED,
        /** It had already been given this same answer (status and payload): nothing changed. */
        ALREADY,
        /** It had already been answered differently, expired or cancelled: nothing changed. */
        CONFLICT,
        /** No such interrupt in this run. */
        NOT_FOUND
    }
}
