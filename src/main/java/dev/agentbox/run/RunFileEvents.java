package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.sandbox.FileWatch;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * The file events of one run with {@code fileEvents}: changes under its sandbox's workspace (the
 * watcher of {@code GET /sandboxes/{key}/file-events}, {@link FileWatch}) gathered here and turned
 * into {@code CUSTOM file.changed} chunks by its driver.
 *
 * <p>Threads: the watcher calls {@link #offer} from its own thread; only the driver calls {@link
 * #drain}, between journal batches, and appends what it returns through its fenced writer — so file
 * events and journal chunks are serialized by the driver thread, go through the same lease and
 * epoch checks, and none can follow the terminal chunk (the driver stops draining before it writes
 * that, and closes the watcher on every way out: the run's end, a lost lease, a cancel, leaving).
 *
 * <p>Order against the journal: a change and the line the agent printed before it reach this server
 * by two channels (the watcher, the journal's tail), and the watcher's may be the faster. So the
 * driver {@linkplain #seal seals} what is due, measures the journal, and drains only once its
 * reader has passed that size ({@code JournalPump}).
 *
 * <p>Bounds, so that a storm (an {@code npm install} touching ten thousand files) cannot flood the
 * log:
 *
 * <ul>
 *   <li><b>coalescing</b>: events are held for at least {@value #WINDOW_MS} ms and merged per path
 *       (create+change = create, create+delete = nothing, delete+create = change, otherwise the
 *       last kind); at most {@value #MAX_PENDING} paths wait at once;
 *   <li><b>rate</b>: at most {@value #PER_SECOND} chunks per second (a token bucket of that size);
 *   <li><b>per run</b>: at most {@value #PER_RUN} chunks per driver;
 *   <li><b>per row</b>: the driver says how many more service chunks its log may hold before the
 *       agent's next journal chunk (a takeover's replay passes over at most {@value
 *       Alignment#MAX_OUT_OF_BAND_SKIP} in a row); changes beyond that wait, merged per path, for
 *       the next line (at the agent's exit they are dropped and counted);
 *   <li>whatever a bound drops is counted and reported as one {@code file.changed} with {@code
 *       "path":"/workspace","kind":"change","dropped":N}, at most every {@value #SUMMARY_EVERY_MS}
 *       ms and once more at the agent's exit.
 * </ul>
 */
final class RunFileEvents implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());

    static final long WINDOW_MS = 250;
    static final int MAX_PENDING = 1000;
    static final int PER_SECOND = 50;
    static final int PER_RUN = 5000;
    static final long SUMMARY_EVERY_MS = 5000;

    /**
     * For the polling fallback of a watcher (a sandbox without {@code inotifywait}): one shared
     * daemon thread, which only ever runs one {@code find} per second per watched run.
     */
    private static volatile ScheduledExecutorService poller;

    private final LongSupplier nanos;
    private final Map<String, String> pending = new LinkedHashMap<>();

    /** Events set aside by {@link #seal}, waiting for the journal to be read up to its barrier. */
    private final Map<String, String> sealed = new LinkedHashMap<>();

    private long dropped;

    /** Whether the driver seals ({@link #seal}); a drain without sealing reports all that waits. */
    private boolean sealing;

    private long emitted;
    private double tokens = PER_SECOND;
    private long lastDrain;
    private long lastRefill;
    private long lastSummary;
    private FileWatch watch;

    RunFileEvents(LongSupplier nanos) {
        this.nanos = nanos;
        long now = nanos.getAsLong();
        this.lastDrain = now;
        this.lastRefill = now;
        this.lastSummary = now;
    }

    /**
     * Starts watching the workspace of {@code handle}. Best effort: a watcher that cannot start is
     * logged and the run goes on without file events.
     */
    static RunFileEvents watch(String label, SandboxHandle handle) {
        RunFileEvents events = new RunFileEvents(System::nanoTime);
        try {
            events.watch = FileWatch.start(handle, e -> events.offer(e.path(), e.type()), poller());
        } catch (RuntimeException e) {
            LOG.warning(label + ": file events unavailable, the run goes on without them: " + e);
        }
        return events;
    }

    private static ScheduledExecutorService poller() {
        if (poller == null) {
            synchronized (RunFileEvents.class) {
                if (poller == null) {
                    poller =
                            Executors.newSingleThreadScheduledExecutor(
                                    r -> {
                                        Thread t = new Thread(r, "agentbox-run-file-events");
                                        t.setDaemon(true);
                                        return t;
                                    });
                }
            }
        }
        return poller;
    }

    /** One change of {@code path} ({@code create|change|delete}), from the watcher. */
    synchronized void offer(String path, String kind) {
        String before = pending.get(path);
        if (before == null) {
            if (pending.size() >= MAX_PENDING) {
                dropped++;
                return;
            }
            pending.put(path, kind);
            return;
        }
        String merged = merge(before, kind);
        if (merged == null) {
            pending.remove(path);
        } else {
            pending.put(path, merged);
        }
    }

    /** The net kind of two changes of one path in a row; null when they cancel out. */
    static String merge(String before, String after) {
        if ("create".equals(before) && "change".equals(after)) {
            return "create";
        }
        if ("create".equals(before) && "delete".equals(after)) {
            return null;
        }
        if ("delete".equals(before) && "create".equals(after)) {
            return "change";
        }
        return after;
    }

    /** {@link #drain(ChunkFactory, boolean, int)} with no limit on the chunks per drain. */
    synchronized List<JsonObject> drain(ChunkFactory chunks, boolean last) {
        return drain(chunks, last, Integer.MAX_VALUE);
    }

    /**
     * The {@code file.changed} chunks due now, for the driver to append: nothing until {@value
     * #WINDOW_MS} ms since the previous drain, unless {@code last} (the agent has exited: whatever
     * waits goes now, with the count of what was dropped). At most {@code room} chunks, one of them
     * kept for the summary: the changes beyond wait for a later drain (at the last, they are
     * dropped).
     */
    synchronized List<JsonObject> drain(ChunkFactory chunks, boolean last, int room) {
        long now = nanos.getAsLong();
        if (!last && !windowPassed(now)) {
            return List.of();
        }
        lastDrain = now;
        Map<String, String> due = new LinkedHashMap<>(sealed);
        sealed.clear();
        if (last || !sealing) {
            pending.forEach((path, kind) -> due.merge(path, kind, RunFileEvents::mergeOrNull));
            pending.clear();
        }
        tokens = Math.min(PER_SECOND, tokens + (now - lastRefill) / 1e9 * PER_SECOND);
        lastRefill = now;
        List<JsonObject> out = new ArrayList<>();
        int changesRoom = room == Integer.MAX_VALUE ? room : room - 1;
        for (Iterator<Map.Entry<String, String>> it = due.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, String> e = it.next();
            if (out.size() >= changesRoom && !last) {
                break; // the rest waits, in order, ahead of later changes
            }
            it.remove();
            if (emitted >= PER_RUN || tokens < 1 || out.size() >= changesRoom) {
                dropped++;
                continue;
            }
            tokens--;
            emitted++;
            out.add(ServiceChunks.fileChanged(chunks, e.getKey(), e.getValue()));
        }
        sealed.putAll(due);
        if (dropped > 0
                && out.size() < room
                && (last || now - lastSummary >= SUMMARY_EVERY_MS * 1_000_000)) {
            out.add(ServiceChunks.fileChangesDropped(chunks, dropped));
            dropped = 0;
            lastSummary = now;
        }
        if (last && dropped > 0) {
            LOG.info("file events: " + dropped + " dropped at the agent's exit, unreported");
        }
        return out;
    }

    /** Whether a drain now would have changes to report: the window has passed and some wait. */
    synchronized boolean due() {
        return windowPassed(nanos.getAsLong()) && !(pending.isEmpty() && sealed.isEmpty());
    }

    /**
     * Sets aside the changes noticed so far; from now on a drain (other than the last) reports only
     * what was set aside, and later changes wait for the next seal. The driver seals, then measures
     * the journal, then drains once it has read that far: every line the agent printed before a
     * sealed change is then in the log before it.
     */
    synchronized void seal() {
        sealing = true;
        pending.forEach((path, kind) -> sealed.merge(path, kind, RunFileEvents::mergeOrNull));
        pending.clear();
    }

    private boolean windowPassed(long now) {
        return now - lastDrain >= WINDOW_MS * 1_000_000;
    }

    /** {@link #merge} as a {@link Map#merge} function (null removes the path). */
    private static String mergeOrNull(String before, String after) {
        return merge(before, after);
    }

    /** Stops the watcher; later events are ignored. */
    @Override
    public void close() {
        if (watch != null) {
            watch.close();
        }
    }
}
