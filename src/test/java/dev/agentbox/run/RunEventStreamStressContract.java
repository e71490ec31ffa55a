package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.JpaClaimStore;
import dev.agentbox.run.store.JpaEventLog;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.RunStore;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoublePredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Replay → tail under load, on a real database: writers append runs' chunks exactly as a driver
 * does (fenced by the epoch, then published to this server's hub), while 800 readers attach at
 * random moments — from the start or, as a Last-Event-ID resume, after a random offset, a quarter
 * of them dropping midway and resuming where they stopped (about a thousand attachments in all) —
 * on this server (the hub that gets the publishes) or on a second one (a hub that never does, so it
 * polls the table). Every reader's chunks must be exactly the stored log after its offset: no gap,
 * no duplicate, same content.
 *
 * <p>On embedded Derby this reproduces the skipped chunks readers saw: a table read overlapping an
 * append's commit can return that append's later rows without its first ones, and a stream that
 * takes such a page as it came skips them for good.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RunEventStreamStressContract {

    static final int RUNS = 4;
    static final int CHUNKS_PER_RUN = 150;
    static final int READERS_PER_RUN = 200;

    protected abstract TestDatabase.Kind kind();

    private TestDatabase db;
    private RunStore runs;
    private ClaimStore claims;
    private EventLog log;
    private final String tenant = "tenant-" + UUID.randomUUID();

    @BeforeAll
    void open() {
        db = TestDatabase.open(kind());
        runs = db.transactional(RunStore.class, JpaRunStore::new);
        claims = db.transactional(ClaimStore.class, JpaClaimStore::new);
        log = db.transactional(EventLog.class, JpaEventLog::new);
    }

    @AfterAll
    void close() {
        db.inTransaction(
                em -> {
                    List<String> refs =
                            em.createQuery(
                                            "SELECT r.runPk FROM RunRecord r WHERE r.tenant = :t",
                                            String.class)
                                    .setParameter("t", tenant)
                                    .getResultList();
                    for (String ref : refs) {
                        em.createQuery("DELETE FROM RunEvent e WHERE e.runPk = :pk")
                                .setParameter("pk", ref)
                                .executeUpdate();
                        em.createQuery("DELETE FROM DriverClaim c WHERE c.runPk = :pk")
                                .setParameter("pk", ref)
                                .executeUpdate();
                    }
                    em.createQuery("DELETE FROM RunRecord r WHERE r.tenant = :t")
                            .setParameter("t", tenant)
                            .executeUpdate();
                    return null;
                });
        db.close();
    }

    @Test
    void everyReaderOnEitherServerGetsExactlyTheStoredLogAfterItsOffsetWhileChunksAreAppended()
            throws Exception {
        CountingHub local = new CountingHub();
        CountingHub remote = new CountingHub(); // a second server: never published to, it polls
        RunEventStream onLocal = new RunEventStream(log, runs, local);
        RunEventStream onRemote = new RunEventStream(log, runs, remote);

        int total = RUNS * READERS_PER_RUN;
        AtomicInteger attached = new AtomicInteger();
        List<Writer> writers = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            // Each writer keeps pace with the attaching readers, so that they attach all along the
            // run.
            writers.add(
                    new Writer(
                            claimedRun(),
                            local,
                            progress -> attached.get() >= total * progress * 0.9));
        }
        ExecutorService pool = Executors.newCachedThreadPool();
        List<Future<?>> writing = new ArrayList<>();
        writers.forEach(w -> writing.add(pool.submit(w)));

        List<Reader> readers = new ArrayList<>();
        List<Future<?>> reading = new ArrayList<>();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        // Readers attach throughout the writing, a few more after it ended (pure replays).
        for (int i = 0; i < total; i++) {
            Writer w = writers.get(random.nextInt(RUNS));
            long published = w.published.get();
            long after = random.nextInt(3) == 0 ? 0 : random.nextLong(published + 1);
            int stopAfter = random.nextInt(4) == 0 ? 1 + random.nextInt(40) : Integer.MAX_VALUE;
            Reader r = new Reader(w.run, after, !w.done(), stopAfter);
            readers.add(r);
            reading.add(pool.submit(() -> r.read(onLocal, onRemote)));
            attached.incrementAndGet();
        }
        for (Future<?> f : writing) {
            f.get(60, TimeUnit.SECONDS);
        }
        for (Future<?> f : reading) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        List<String> wrong = new ArrayList<>();
        int live = 0;
        int resumed = 0;
        Map<RunRef, List<LoggedChunk>> logs = new HashMap<>();
        writers.forEach(w -> logs.put(w.run, log.read(w.run, 0, 10_000)));
        for (Reader r : readers) {
            List<LoggedChunk> all = logs.get(r.run);
            List<LoggedChunk> stored = all.subList((int) Math.min(r.after, all.size()), all.size());
            if (!r.received.equals(stored)) {
                wrong.add(r.describe(stored));
            }
            live += r.attachedLive ? 1 : 0;
            resumed += r.resumes;
        }
        assertThat(wrong)
                .as("readers whose chunks differ from the stored log after their offset")
                .isEmpty();
        logs.values().forEach(stored -> assertThat(stored).hasSize(CHUNKS_PER_RUN));
        // The test only means something if the race was run: readers attached to live runs,
        // resumed midway, and both memory (this server) and the table (the other) served them.
        assertThat(live).isGreaterThan(total / 2);
        assertThat(resumed).isGreaterThan(total / 10);
        assertThat(local.servedFromMemory.get()).isPositive();
        assertThat(remote.servedFromMemory.get()).isZero();
        assertThat(local.keptRuns()).as("buffers of finished runs are dropped").isZero();
    }

    private RunRef claimedRun() {
        RunRef run =
                runs.create(
                                NewRun.durable(
                                        tenant,
                                        "run-" + UUID.randomUUID(),
                                        "thread-1",
                                        Harness.COMMAND,
                                        Instant.now()))
                        .orElseThrow()
                        .ref();
        claims.claim(run, "node-a").orElseThrow();
        return run;
    }

    /**
     * Appends a run's chunks in small batches and publishes each, as {@link RunWriter.Claim#append}
     * does.
     */
    private final class Writer implements Runnable {
        final RunRef run;
        final RunEventHub hub;
        final DoublePredicate readersCaughtUpWith;
        final AtomicLong published = new AtomicLong();
        volatile boolean finished;

        Writer(RunRef run, RunEventHub hub, DoublePredicate readersCaughtUpWith) {
            this.run = run;
            this.hub = hub;
            this.readersCaughtUpWith = readersCaughtUpWith;
        }

        boolean done() {
            return finished;
        }

        @Override
        public void run() {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long epoch = claims.epoch(run).orElseThrow();
            int seq = 0;
            try {
                while (seq < CHUNKS_PER_RUN) {
                    while (!readersCaughtUpWith.test((double) seq / CHUNKS_PER_RUN)) {
                        Thread.sleep(1);
                    }
                    int n = Math.min(1 + random.nextInt(6), CHUNKS_PER_RUN - seq);
                    List<JsonObject> batch = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        seq++;
                        batch.add(
                                chunk(
                                        seq == 1
                                                ? "CUSTOM"
                                                : seq == CHUNKS_PER_RUN
                                                        ? "RUN_FINISHED"
                                                        : "TEXT_MESSAGE_CONTENT",
                                        seq));
                    }
                    List<LoggedChunk> appended = log.append(run, epoch, batch);
                    published.set(appended.get(appended.size() - 1).seq());
                    hub.publish(run, appended);
                    Thread.sleep(random.nextInt(3));
                }
                log.finishRun(run, epoch, RunStatus.COMPLETED, Instant.now(), Optional.empty());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                finished = true;
            }
        }

        private JsonObject chunk(String type, int n) {
            return Json.createObjectBuilder()
                    .add("type", type)
                    .add("threadId", "thread-1")
                    .add("runId", run.id())
                    .add("timestamp", n)
                    .add("delta", "d" + n)
                    .build();
        }
    }

    /**
     * One client: reads from {@code after}, and when it drops midway resumes with Last-Event-ID, on
     * either server.
     */
    private static final class Reader {
        final RunRef run;
        final long after;
        final boolean attachedLive;
        final int stopAfter;
        final List<LoggedChunk> received = new ArrayList<>();
        int resumes;

        Reader(RunRef run, long after, boolean attachedLive, int stopAfter) {
            this.run = run;
            this.after = after;
            this.attachedLive = attachedLive;
            this.stopAfter = stopAfter;
        }

        void read(RunEventStream a, RunEventStream b) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long lastEventId = after;
            for (int attempt = 0; attempt < 100; attempt++) {
                AtomicInteger budget =
                        new AtomicInteger(attempt == 0 ? stopAfter : Integer.MAX_VALUE);
                RunEventStream server = random.nextInt(4) == 0 ? b : a;
                RunEventStream.End end =
                        server.pump(
                                run,
                                lastEventId,
                                new RunEventStream.Sink() {
                                    @Override
                                    public boolean send(LoggedChunk chunk) {
                                        if (budget.getAndDecrement() <= 0) {
                                            return false; // the client went away before this one
                                            // arrived
                                        }
                                        received.add(chunk);
                                        return true;
                                    }

                                    @Override
                                    public boolean heartbeat() {
                                        return true;
                                    }
                                });
                if (end != RunEventStream.End.CLIENT_GONE) {
                    return;
                }
                resumes++;
                lastEventId = received.isEmpty() ? after : received.get(received.size() - 1).seq();
            }
        }

        String describe(List<LoggedChunk> stored) {
            return "run "
                    + run.id()
                    + " after "
                    + after
                    + " ("
                    + resumes
                    + " resumes): got "
                    + received.stream().map(LoggedChunk::seq).toList()
                    + ", stored "
                    + stored.stream().map(LoggedChunk::seq).toList();
        }
    }

    /** A hub that counts how often its memory answered a reader with chunks. */
    private static final class CountingHub extends RunEventHub {
        final AtomicInteger servedFromMemory = new AtomicInteger();

        @Override
        public Optional<List<LoggedChunk>> recentAfter(RunRef run, long afterSeq) {
            Optional<List<LoggedChunk>> answer = super.recentAfter(run, afterSeq);
            if (answer.isPresent() && !answer.get().isEmpty()) {
                servedFromMemory.incrementAndGet();
            }
            return answer;
        }
    }
}
