package dev.agentbox.run;

import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import java.util.List;
import java.util.Optional;

/**
 * Replay-then-tail of one run's log for one reader: everything after {@code afterSeq}, then new
 * rows as they are appended — woken by {@link RunEventHub} (and served from its memory) for runs
 * driven here, by polling the table (every 250 ms) for runs another server drives. Ends after the
 * terminal chunk. Offsets are the log's sequence numbers, and a reader is only ever given seq
 * {@code last + 1} ({@link LogPosition}), so a reader resuming after offset N gets N+1… with no gap
 * and no duplicate.
 */
public final class RunEventStream {

    static final int PAGE = 500;
    static final long POLL_MS = 250;
    static final long HEARTBEAT_MS = 1000;
    static final long TABLE_RECHECK_NS = 1_000_000_000L;

    /** Where the chunks go. Each method returns false once the client is gone. */
    public interface Sink {
        boolean send(LoggedChunk chunk);

        boolean heartbeat();

        /**
         * Called about once a second while the run is quiet (e.g. to take over a driverless run).
         */
        default void idle() {}
    }

    public enum End {
        TERMINAL,
        CLIENT_GONE,
        STOPPED
    }

    private final EventLog log;
    private final RunStore runs;
    private final RunEventHub hub;
    private final java.util.function.BooleanSupplier stopping;

    public RunEventStream(EventLog log, RunStore runs, RunEventHub hub) {
        this(log, runs, hub, () -> false);
    }

    /**
     * {@code stopping}: the server is shutting down; streams end so the server can stop promptly.
     */
    public RunEventStream(
            EventLog log,
            RunStore runs,
            RunEventHub hub,
            java.util.function.BooleanSupplier stopping) {
        this.log = log;
        this.runs = runs;
        this.hub = hub;
        this.stopping = stopping;
    }

    /**
     * Pumps chunks into {@code sink} on the calling thread until the run's end, the client's, or an
     * interrupt.
     */
    public End pump(RunRef run, long afterSeq, Sink sink) {
        // Registered before the first read: a chunk published after a read but before the
        // wait sets the waiter's flag, so that wait returns at once instead of missing it.
        try (RunEventHub.Waiter waiter = hub.register(run)) {
            Source source = new Source(run, new LogPosition(afterSeq));
            long lastBeat = System.nanoTime();
            int idleLoops = 0;
            while (!Thread.currentThread().isInterrupted() && !stopping.getAsBoolean()) {
                Page page = source.next();
                for (LoggedChunk c : page.chunks()) {
                    if (!sink.send(c)) {
                        return End.CLIENT_GONE;
                    }
                    source.position.advance(c);
                    if (c.isTerminal()) {
                        awaitTerminalRecord(run);
                        return End.TERMINAL;
                    }
                }
                if (page.more()) {
                    continue;
                }
                // A run that ended without a terminal chunk (never expected, but the record
                // is authoritative) must not keep a reader forever.
                if (page.chunks().isEmpty()
                        && ++idleLoops % 8 == 0
                        && runs.findById(run).map(r -> r.isTerminal()).orElse(true)
                        && log.read(run, source.position.last(), 1).isEmpty()) {
                    return End.TERMINAL;
                }
                waiter.await(POLL_MS);
                if ((System.nanoTime() - lastBeat) / 1_000_000 >= HEARTBEAT_MS) {
                    if (!sink.heartbeat()) {
                        return End.CLIENT_GONE;
                    }
                    if (page.chunks().isEmpty()) {
                        sink.idle();
                    }
                    lastBeat = System.nanoTime();
                }
            }
            return End.STOPPED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return End.STOPPED;
        }
    }

    /**
     * Chunks to give next, all continuing the position; {@code more}: a full page was taken, read
     * on at once.
     */
    private record Page(List<LoggedChunk> chunks, boolean more) {
        static final Page NOTHING_YET = new Page(List.of(), false);
    }

    /**
     * Where one reader's chunks come from: the hub's memory when it continues the position exactly,
     * else the table.
     */
    private final class Source {
        final RunRef run;
        final LogPosition position;
        private long lastTableRead = System.nanoTime() - TABLE_RECHECK_NS;

        Source(RunRef run, LogPosition position) {
            this.run = run;
            this.position = position;
        }

        /**
         * Replay and tail meet here, and neither source is trusted to continue the position:
         *
         * <ul>
         *   <li>the table: on embedded Derby a read that runs while an append commits can return
         *       that append's later rows without its first ones (READ COMMITTED there gives a
         *       statement no snapshot), and taking such a page as it came skipped chunks for good;
         *   <li>memory: the driver publishes only after its commit, so memory may lag the table,
         *       and its buffer starts over after publishes that arrive out of order.
         * </ul>
         *
         * Only seq {@code last+1, last+2, …} is ever handed out ({@link LogPosition#continuing});
         * whatever does not continue the position is read again from the table after {@code last}.
         * No chunk can be skipped or repeated, whichever source was ahead.
         */
        Page next() {
            Optional<List<LoggedChunk>> memory = hub.recentAfter(run, position.last());
            if (memory.isPresent()) {
                List<LoggedChunk> continuing = position.continuing(memory.get());
                if (!continuing.isEmpty()) {
                    return new Page(continuing, false);
                }
                if (memory.get().isEmpty()
                        && System.nanoTime() - lastTableRead < TABLE_RECHECK_NS) {
                    return Page
                            .NOTHING_YET; // a local driver publishes every append; nothing new yet
                }
            }
            // Memory cannot answer (another server drives the run, this reader is behind the
            // buffer, the run has ended), or has been quiet for a while: the table decides.
            List<LoggedChunk> rows = log.read(run, position.last(), PAGE);
            lastTableRead = System.nanoTime();
            List<LoggedChunk> continuing = position.continuing(rows);
            // A page cut short by a gap is read again after the next wake-up, not in a busy loop.
            return new Page(continuing, rows.size() >= PAGE && continuing.size() == rows.size());
        }
    }

    /**
     * The driver appends the terminal chunk, then writes the terminal record. Holding the stream
     * open until the record is terminal too (briefly) means a client that reads the run right after
     * the stream ends sees its final status.
     */
    private void awaitTerminalRecord(RunRef run) throws InterruptedException {
        for (int i = 0; i < 60; i++) {
            if (runs.findById(run).map(r -> r.isTerminal()).orElse(true)) {
                return;
            }
            Thread.sleep(50);
        }
    }
}
