package dev.agentbox.run;

import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRef;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In-process wake-ups for readers of a run's log: a driver on this server signals after every
 * append, and each waiting reader re-reads the log. The database stays the source of truth; a
 * signal only shortens the wait. Readers of runs driven by another server are woken by their own
 * polling instead.
 *
 * <p>It also keeps the latest chunks a local driver appended, so live readers of a run driven here
 * are served from memory instead of each re-reading the table (with 100 readers that would be 100
 * queries per append). The buffer:
 *
 * <ul>
 *   <li>only ever holds a contiguous run of sequence numbers; a reader whose position falls outside
 *       it reads the table (and {@link RunEventStream} checks contiguity again itself);
 *   <li>is dropped when the run's terminal chunk is published, or when the local driver stops
 *       without one: a finished run has no live readers to serve, and late readers replay from the
 *       table anyway;
 *   <li>is kept for at most {@value #RECENT_RUNS} runs (least recently used first out);
 *   <li>holds at most {@value #RECENT_PER_RUN} chunks and {@value #RECENT_CHARS_PER_RUN} characters
 *       of chunk JSON per run (oldest first out; a chunk larger than that is not kept at all), and
 *       at most {@value #RECENT_CHARS_TOTAL} characters over all runs (the least recently used
 *       run's buffer is dropped first). An agent that prints huge lines therefore costs readers a
 *       table read, never the server's heap.
 * </ul>
 *
 * <p>Signalling never blocks: a slow reader cannot slow the driver or other readers.
 */
@ApplicationScoped
public class RunEventHub {

    static final int RECENT_PER_RUN = 4096;
    static final int RECENT_RUNS = 256;
    static final int RECENT_CHARS_PER_RUN = 1 << 20;
    static final long RECENT_CHARS_TOTAL = 32L << 20;

    private final Map<RunRef, Set<Waiter>> waiters = new ConcurrentHashMap<>();
    private final Map<RunRef, ArrayDeque<LoggedChunk>> recent =
            Collections.synchronizedMap(
                    new LinkedHashMap<>(16, 0.75f, true) {
                        @Override
                        protected boolean removeEldestEntry(
                                Map.Entry<RunRef, ArrayDeque<LoggedChunk>> eldest) {
                            if (size() > RECENT_RUNS) {
                                keptChars -= chars(eldest.getValue());
                                return true;
                            }
                            return false;
                        }
                    });

    /** Characters of chunk JSON in {@link #recent}; guarded by {@code recent}. */
    private long keptChars;

    /** A reader's wake-up flag: {@link #await} returns early once signalled. */
    public static final class Waiter implements AutoCloseable {
        private final Runnable unregister;
        private boolean signalled;

        private Waiter(Runnable unregister) {
            this.unregister = unregister;
        }

        synchronized void signal() {
            signalled = true;
            notifyAll();
        }

        /** Waits up to {@code millis} for a signal; clears it. */
        public synchronized void await(long millis) throws InterruptedException {
            long deadline = System.nanoTime() + millis * 1_000_000;
            while (!signalled) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                wait(left);
            }
            signalled = false;
        }

        @Override
        public void close() {
            unregister.run();
        }
    }

    /**
     * A wake-up flag for {@code run}, signalled by every later {@link #publish} or {@link #signal}.
     * Register before the first read of the log: a publish that lands between that read and the
     * wait then still wakes the reader.
     */
    public Waiter register(RunRef run) {
        Waiter[] holder = new Waiter[1];
        holder[0] =
                new Waiter(
                        () ->
                                waiters.computeIfPresent(
                                        run,
                                        (k, set) -> {
                                            set.remove(holder[0]);
                                            return set.isEmpty() ? null : set;
                                        }));
        // Add inside compute: a set fetched first and added to afterwards may meanwhile have
        // been dropped by the last other reader's close, and this waiter would never be woken.
        waiters.compute(
                run,
                (k, set) -> {
                    Set<Waiter> s = set != null ? set : ConcurrentHashMap.newKeySet();
                    s.add(holder[0]);
                    return s;
                });
        return holder[0];
    }

    /**
     * Chunks a driver on this server just appended (in sequence order): keep them and wake the
     * readers.
     */
    public void publish(RunRef run, List<LoggedChunk> appended) {
        if (!appended.isEmpty()) {
            synchronized (recent) {
                if (appended.stream().anyMatch(LoggedChunk::isTerminal)) {
                    drop(run);
                } else {
                    keep(run, appended);
                }
            }
        }
        signal(run);
    }

    private void keep(RunRef run, List<LoggedChunk> appended) {
        ArrayDeque<LoggedChunk> buffer = recent.computeIfAbsent(run, k -> new ArrayDeque<>());
        if (!buffer.isEmpty() && buffer.peekLast().seq() + 1 != appended.get(0).seq()) {
            // Publishes may arrive out of order (two threads appended one after the other):
            // never keep a gap, start over from this batch.
            keptChars -= chars(buffer);
            buffer.clear();
        }
        long runChars = chars(buffer);
        for (LoggedChunk c : appended) {
            if (c.json().length() > RECENT_CHARS_PER_RUN) {
                // Too big to keep: keeping what follows would leave a gap, so start over after it.
                keptChars -= runChars;
                runChars = 0;
                buffer.clear();
                continue;
            }
            buffer.addLast(c);
            runChars += c.json().length();
            keptChars += c.json().length();
            while (buffer.size() > RECENT_PER_RUN || runChars > RECENT_CHARS_PER_RUN) {
                int n = buffer.removeFirst().json().length();
                runChars -= n;
                keptChars -= n;
            }
        }
        // Over the total: drop whole buffers, least recently used first (never this run's,
        // which was just touched and is last in access order).
        var eldest = recent.entrySet().iterator();
        while (keptChars > RECENT_CHARS_TOTAL && eldest.hasNext()) {
            var e = eldest.next();
            if (e.getKey().equals(run)) {
                break;
            }
            keptChars -= chars(e.getValue());
            eldest.remove();
        }
    }

    private void drop(RunRef run) {
        ArrayDeque<LoggedChunk> buffer = recent.remove(run);
        if (buffer != null) {
            keptChars -= chars(buffer);
        }
    }

    private static long chars(ArrayDeque<LoggedChunk> buffer) {
        long n = 0;
        for (LoggedChunk c : buffer) {
            n += c.json().length();
        }
        return n;
    }

    /**
     * Every kept chunk after {@code afterSeq}, when memory can answer exactly: the buffer starts at
     * or before {@code afterSeq + 1}. Empty when the table must be read instead.
     */
    public Optional<List<LoggedChunk>> recentAfter(RunRef run, long afterSeq) {
        synchronized (recent) {
            ArrayDeque<LoggedChunk> buffer = recent.get(run);
            if (buffer == null || buffer.isEmpty() || buffer.peekFirst().seq() > afterSeq + 1) {
                return Optional.empty();
            }
            List<LoggedChunk> out = new ArrayList<>();
            for (LoggedChunk c : buffer) {
                if (c.seq() > afterSeq) {
                    out.add(c);
                }
            }
            return Optional.of(out);
        }
    }

    /**
     * The driver on this server stopped driving {@code run} (it finished, was fenced out, or left):
     * its chunks are no longer kept, and the readers are woken to look at the table.
     */
    public void driverStopped(RunRef run) {
        synchronized (recent) {
            drop(run);
        }
        signal(run);
    }

    /** Characters of chunk JSON kept over all runs (for tests of the memory bound). */
    long keptChars() {
        synchronized (recent) {
            return keptChars;
        }
    }

    /** How many runs have chunks kept in memory (for tests of the memory bound). */
    int keptRuns() {
        return recent.size();
    }

    /** New chunks (or a terminal state) for {@code run}: wake its readers. */
    public void signal(RunRef run) {
        Set<Waiter> set = waiters.get(run);
        if (set != null) {
            set.forEach(Waiter::signal);
        }
    }
}
