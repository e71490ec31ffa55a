package dev.agentbox.interrupt.store;

import dev.agentbox.run.store.RunRef;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Durable interrupts, shared by every server on one database. Each method is one transaction.
 *
 * <p>Invariants: at most one interrupt per (run, callKey), so a server that takes a run over and
 * asks again for the same call gets the same interrupt; a status leaves {@code pending} at most
 * once, by a compare-and-set on {@code status = pending} whose row count says who won (two servers
 * answering at once: exactly one answers, the other sees its outcome); an interrupt past its {@code
 * expiresAt} can no longer be answered, whether or not the reaper has marked it {@code expired}.
 */
public interface InterruptStore {

    /**
     * Records {@code wait} as pending, or returns the interrupt its (run, callKey) already has,
     * whatever its status. Two servers opening the same call at once: one insert wins and the other
     * fails on the unique constraint; its caller re-reads with {@link #findByCallKey} (the pattern
     * of {@code RunCreation}).
     */
    Interrupt open(NewInterrupt wait);

    Optional<Interrupt> find(RunRef run, String id);

    Optional<Interrupt> findByCallKey(RunRef run, String callKey);

    /** The interrupts of these ids that exist, in no particular order (a waiter's poll). */
    List<Interrupt> findAll(Collection<String> ids);

    /** The run's pending interrupts, oldest first (expired ones not yet marked included). */
    List<Interrupt> pending(RunRef run);

    /**
     * Answers interrupt {@code id} of {@code run} with {@code status} ({@code resolved} or {@code
     * cancelled}) and {@code payload}, if it is pending and not past {@code expiresAt} at {@code
     * now}. A pending interrupt found past its expiry is marked {@code expired} (a {@link
     * Answer.Outcome#CONFLICT}).
     */
    Answer answer(
            RunRef run,
            String id,
            InterruptStatus status,
            Optional<JsonObject> payload,
            Instant now);

    /** Cancels the run's pending interrupts; how many. */
    int cancelPending(RunRef run, Instant now);

    /** Marks at most {@code max} pending interrupts whose expiresAt is at or before now expired. */
    int expireDue(Instant now, int max);

    /** Cancels at most {@code max} pending interrupts of runs that have ended (any server). */
    int cancelOfEndedRuns(Instant now, int max);
}
