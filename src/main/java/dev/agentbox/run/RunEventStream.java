package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkType;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import java.util.List;
import java.util.Optional;

/**
 * Replay-then-tail of one run's log for one reader: everything after {@code afterSeq} from
 * the table, then new rows as they are appended — woken by {@link RunEventHub} for runs
 * driven here, by polling (every 250 ms) for runs another server drives. Ends after the
 * terminal chunk. Offsets are the log's sequence numbers, so a reader resuming after
 * offset N gets N+1… with no gap and no duplicate.
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

        /** Called about once a second while the run is quiet (e.g. to take over a driverless run). */
        default void idle() {
        }
    }

    public enum End { TERMINAL, CLIENT_GONE, STOPPED }

    private final EventLog log;
    private final RunStore runs;
    private final RunEventHub hub;
    private final java.util.function.BooleanSupplier stopping;

    public RunEventStream(EventLog log, RunStore runs, RunEventHub hub) {
        this(log, runs, hub, () -> false);
    }

    /** {@code stopping}: the server is shutting down; streams end so the server can stop promptly. */
    public RunEventStream(EventLog log, RunStore runs, RunEventHub hub, java.util.function.BooleanSupplier stopping) {
        this.log = log;
        this.runs = runs;
        this.hub = hub;
        this.stopping = stopping;
    }

    /** Pumps chunks into {@code sink} on the calling thread until the run's end, the client's, or an interrupt. */
    public End pump(RunRef run, long afterSeq, Sink sink) {
        try (RunEventHub.Waiter waiter = hub.register(run)) {
            long after = afterSeq;
            long lastBeat = System.nanoTime();
            int idleLoops = 0;
            long lastTableRead = System.nanoTime() - TABLE_RECHECK_NS;
            while (!Thread.currentThread().isInterrupted() && !stopping.getAsBoolean()) {
                Optional<List<LoggedChunk>> memory = hub.recentAfter(run, after);
                List<LoggedChunk> page;
                if (memory.isPresent() && !memory.get().isEmpty()) {
                    page = memory.get();
                } else if (memory.isPresent() && System.nanoTime() - lastTableRead < TABLE_RECHECK_NS) {
                    page = List.of(); // a local driver publishes every append; nothing new yet
                } else {
                    // Memory cannot answer (another server drives the run, or this reader is
                    // behind the buffer), or has been quiet for a while: the table decides.
                    page = log.read(run, after, PAGE);
                    lastTableRead = System.nanoTime();
                }
                for (LoggedChunk c : page) {
                    if (!sink.send(c)) {
                        return End.CLIENT_GONE;
                    }
                    after = c.seq();
                    if (isTerminal(c.type())) {
                        awaitTerminalRecord(run);
                        return End.TERMINAL;
                    }
                }
                if (page.size() >= PAGE) {
                    continue;
                }
                // A run that ended without a terminal chunk (never expected, but the record
                // is authoritative) must not keep a reader forever.
                if (page.isEmpty() && ++idleLoops % 8 == 0
                        && runs.findById(run).map(r -> r.isTerminal()).orElse(true)
                        && log.read(run, after, 1).isEmpty()) {
                    return End.TERMINAL;
                }
                waiter.await(POLL_MS);
                if ((System.nanoTime() - lastBeat) / 1_000_000 >= HEARTBEAT_MS) {
                    if (!sink.heartbeat()) {
                        return End.CLIENT_GONE;
                    }
                    if (page.isEmpty()) {
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
     * The driver appends the terminal chunk, then writes the terminal record. Holding the
     * stream open until the record is terminal too (briefly) means a client that reads the
     * run right after the stream ends sees its final status.
     */
    private void awaitTerminalRecord(RunRef run) throws InterruptedException {
        for (int i = 0; i < 60; i++) {
            if (runs.findById(run).map(r -> r.isTerminal()).orElse(true)) {
                return;
            }
            Thread.sleep(50);
        }
    }

    static boolean isTerminal(String type) {
        return ChunkType.RUN_FINISHED.name().equals(type) || ChunkType.RUN_ERROR.name().equals(type);
    }
}
