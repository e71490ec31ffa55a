package dev.agentbox.interrupt;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.interrupt.store.InterruptStore;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The calls waiting on this server for their interrupts to be settled.
 *
 * <p>The answer may be written by any server, so a wait cannot rely on being told: one poll task
 * reads every waited interrupt in one query each {@code poll} interval (no query at all while
 * nothing waits; never a busy loop), and an answer given through this server wakes its wait at once
 * ({@link #settled}).
 *
 * <p>Invariants: at most {@code maxWaits} interrupts are waited on (a call over it is refused, not
 * queued); one future per interrupt id, so a call asked twice shares its wait; a future completes
 * once, with an interrupt that is no longer pending: one past its {@code expiresAt} completes as
 * {@code expired} even before the reaper marks it, and the waits of a run that has ended complete
 * as {@code cancelled} (its pending rows are cancelled first, so no later answer can contradict the
 * refusal the agent got).
 */
public final class InterruptWaits implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(InterruptWaits.class.getName());

    private final InterruptStore store;
    private final RunStore runs;
    private final Clock clock;
    private final int maxWaits;
    private final Map<String, Waiter> waits = new ConcurrentHashMap<>();
    private final ScheduledFuture<?> poller;

    private record Waiter(Interrupt interrupt, CompletableFuture<Interrupt> settled) {}

    public InterruptWaits(
            InterruptStore store,
            RunStore runs,
            Clock clock,
            InterruptSettings settings,
            ScheduledExecutorService timer) {
        this.store = store;
        this.runs = runs;
        this.clock = clock;
        this.maxWaits = settings.maxWaits();
        long pollMs = settings.poll().toMillis();
        this.poller =
                timer.scheduleWithFixedDelay(
                        this::pollQuietly, pollMs, pollMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Completes when {@code interrupt} is settled (at once if it already is); empty when this
     * server already waits on {@code maxWaits} interrupts.
     */
    public Optional<CompletableFuture<Interrupt>> await(Interrupt interrupt) {
        if (!interrupt.pending()) {
            return Optional.of(CompletableFuture.completedFuture(interrupt));
        }
        synchronized (waits) {
            Waiter existing = waits.get(interrupt.id());
            if (existing != null) {
                return Optional.of(existing.settled());
            }
            if (waits.size() >= maxWaits) {
                return Optional.empty();
            }
            Waiter w = new Waiter(interrupt, new CompletableFuture<>());
            waits.put(interrupt.id(), w);
            return Optional.of(w.settled());
        }
    }

    /** An interrupt is settled (an answer through this server): its wait, if any, ends now. */
    public void settled(Interrupt interrupt) {
        if (interrupt.pending()) {
            return;
        }
        Waiter w = waits.remove(interrupt.id());
        if (w != null) {
            w.settled().complete(interrupt);
        }
    }

    /** How many interrupts this server waits on. */
    public int waiting() {
        return waits.size();
    }

    /** One poll now (the timer's task; tests call it to skip the interval). */
    public void poll() {
        if (waits.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        Set<RunRef> waitedRuns = new HashSet<>();
        waits.values().forEach(w -> waitedRuns.add(w.interrupt().run()));
        for (RunRef run : waitedRuns) {
            Optional<RunRecordView> record = runs.findById(run);
            if (record.isEmpty() || record.get().isTerminal()) {
                store.cancelPending(run, now);
            }
        }
        Set<String> ids = Set.copyOf(waits.keySet());
        List<Interrupt> found = store.findAll(ids);
        Set<String> missing = new HashSet<>(ids);
        for (Interrupt i : found) {
            missing.remove(i.id());
            if (!i.pending()) {
                settled(i);
            } else if (!now.isBefore(i.expiresAt())) {
                settled(i.settledAs(InterruptStatus.EXPIRED, now));
            }
        }
        for (String id : missing) {
            Waiter w = waits.get(id);
            if (w != null) {
                settled(w.interrupt().settledAs(InterruptStatus.CANCELLED, now));
            }
        }
    }

    private void pollQuietly() {
        try {
            poll();
        } catch (RuntimeException e) {
            // The database may be down for a while: the waits go on, the next poll retries.
            LOG.log(Level.WARNING, "interrupts: poll failed, retrying at the next interval", e);
        }
    }

    /** Stops polling; calls still waiting are left to whichever server drives their runs next. */
    @Override
    public void close() {
        poller.cancel(false);
    }
}
