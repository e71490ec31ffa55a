package dev.agentbox.interrupt;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStore;
import dev.agentbox.interrupt.store.NewInterrupt;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.tool.GateEvents;
import dev.agentbox.tool.ToolCall;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The interrupt of one call of a run, found or opened: what an approval ({@link ApprovalGate}) and
 * a client tool's call ({@link ClientToolWait}) both wait on. Idempotent on the stored call key: a
 * successor asking again after a takeover finds the row the first ask opened. Two servers opening
 * it at once: the loser's insert fails on the unique (run, callKey) and it takes the winner's row,
 * so {@code interrupt.requested} is reported once, by the server whose insert won.
 *
 * <p>A server may die between storing the interrupt and writing its chunk: then no client would
 * ever learn of it from the stream (an AG-UI run would never end with its interrupt). So the first
 * ask of a driver that finds a pending interrupt announces it again; a successor's writer drops the
 * repeat when the log already holds it ({@code BridgedRepeats}: the chunk is a function of the
 * stored row), so the log holds it once either way. One instance per driver of a run.
 */
final class OpenInterrupts {

    private static final Logger LOG = Logger.getLogger(OpenInterrupts.class.getName());

    private final RunRecordView run;
    private final InterruptStore store;
    private final GateEvents events;
    private final Clock clock;
    private final Duration ttl;

    /** The calls whose interrupt this driver announced: a repeat ask announces nothing. */
    private final Set<String> announced = ConcurrentHashMap.newKeySet();

    OpenInterrupts(
            RunRecordView run, InterruptStore store, GateEvents events, Clock clock, Duration ttl) {
        this.run = run;
        this.store = store;
        this.events = events;
        this.clock = clock;
        this.ttl = ttl;
    }

    /** The interrupt stored for {@code key}, or a new one for {@code call}. */
    Interrupt findOrOpen(ToolCall call, String key, String reason, Optional<String> toolCallId) {
        Optional<Interrupt> found = store.findByCallKey(run.ref(), key);
        if (found.isPresent()) {
            if (found.get().pending() && announced.add(key)) {
                announce(found.get());
            }
            return found.get();
        }
        // Whole milliseconds, as every database keeps them: the chunk a successor writes again
        // from the stored row must equal the one written from this one.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Interrupt opened;
        try {
            opened =
                    store.open(
                            new NewInterrupt(
                                    run.ref(),
                                    run.tenant(),
                                    run.runId(),
                                    key,
                                    reason,
                                    toolCallId,
                                    call.tool(),
                                    call.arguments(),
                                    now,
                                    now.plus(ttl)));
        } catch (RuntimeException lost) {
            // The winner announces it.
            announced.add(key);
            return store.findByCallKey(run.ref(), key).orElseThrow(() -> lost);
        }
        announced.add(key);
        announce(opened);
        return opened;
    }

    private void announce(Interrupt interrupt) {
        try {
            events.custom(GateEvents.INTERRUPT_REQUESTED, interrupt.toJson());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "run " + run.runId() + ": interrupt chunk not written", e);
        }
    }
}
