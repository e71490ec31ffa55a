package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.lease.InMemoryLeaseStore;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.InMemoryRuns;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The run-write protocol against the in-memory stores: who may write a run (the lease, the claim),
 * that a stale writer writes nothing, that a terminal record is final, and what an abort (a landed
 * cancel, the reaper's expiry) does through it.
 */
class RunWriterTest {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration RENEW = Duration.ofSeconds(2);

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Clock clock = Clock.systemUTC();
    private final InMemoryRuns runs = new InMemoryRuns();
    private final InMemoryLeaseStore leaseStore = new InMemoryLeaseStore();
    private final RunEventHub hub = new RunEventHub();
    private final RunWriter nodeA = writer("node-a", leaseStore);
    private final RunWriter nodeB = writer("node-b", leaseStore);

    @AfterEach
    void stopRenewals() {
        scheduler.shutdownNow();
    }

    private RunWriter writer(String node, InMemoryLeaseStore store) {
        return new RunWriter(
                new Leases(store, clock, node, scheduler),
                runs,
                runs,
                hub,
                clock,
                node,
                TTL,
                RENEW);
    }

    /** Node A's writer over {@code log} instead of the in-memory log itself. */
    private RunWriter writerOver(dev.agentbox.run.store.EventLog log) {
        return new RunWriter(
                new Leases(leaseStore, clock, "node-a", scheduler),
                runs,
                log,
                hub,
                clock,
                "node-a",
                TTL,
                RENEW);
    }

    private RunContext context(String node) {
        return new RunContext(
                runs,
                runs,
                runs,
                hub,
                null,
                null,
                null,
                clock,
                node,
                new Leases(leaseStore, clock, node, scheduler),
                new RunContext.Takeover(TTL, RENEW, Duration.ZERO, Duration.ZERO),
                cause -> {},
                (decision, n) -> {},
                ended -> {},
                BridgeStarter.NONE);
    }

    private RunRecordView newRun() {
        return runs.create(
                        NewRun.durable(
                                "tenant",
                                "run-" + UUID.randomUUID(),
                                "thread-1",
                                Harness.COMMAND,
                                clock.instant()))
                .orElseThrow();
    }

    private RunRecordView fresh(RunRecordView run) {
        return runs.findById(run.ref()).orElseThrow();
    }

    private List<JsonObject> chunks(RunRecordView run, int n) {
        ChunkFactory f = new ChunkFactory(run.runId(), run.threadId(), clock::millis);
        List<JsonObject> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(f.textMessageContent("m", "delta-" + i));
        }
        return out;
    }

    private List<String> types(RunRef run) {
        return runs.read(run, 0, 100).stream().map(LoggedChunk::type).toList();
    }

    @Test
    @DisplayName(
            "lease, claim, append, finish: the chunks land in order and the record ends with the writer's status")
    void aWriterThatHoldsTheLeaseAndTheClaimWritesTheRun() {
        RunRecordView run = newRun();
        try (RunWriter.Lease lease = nodeA.lease(run.ref()).orElseThrow()) {
            RunWriter.Claim claim = lease.claim().orElseThrow();
            claim.append(chunks(run, 2));
            ChunkFactory f = new ChunkFactory(run.runId(), run.threadId(), clock::millis);

            assertThat(
                            claim.finish(
                                    List.of(f.runFinished()),
                                    RunStatus.COMPLETED,
                                    Optional.empty()))
                    .isEqualTo(FinishResult.FINISHED);
        }
        assertThat(types(run.ref()))
                .containsExactly("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "RUN_FINISHED");
        assertThat(fresh(run).status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(fresh(run).driverEpoch()).hasValue(1);
    }

    @Test
    @DisplayName(
            "a retry after the terminal record failed writes that end's record, not a second terminal chunk (RD-05)")
    void aFinishRetriedAfterItsRecordFailedAddsNoSecondTerminalChunk() {
        RunRecordView run = newRun();
        boolean[] failOnce = {true};
        dev.agentbox.run.store.EventLog flaky =
                new HookedLog(
                        runs,
                        () -> {
                            if (failOnce[0]) {
                                failOnce[0] = false;
                                throw new IllegalStateException("database unreachable");
                            }
                        });
        RunWriter writer = writerOver(flaky);
        ChunkFactory f = new ChunkFactory(run.runId(), run.threadId(), clock::millis);
        try (RunWriter.Lease lease = writer.lease(run.ref()).orElseThrow()) {
            RunWriter.Claim claim = lease.claim().orElseThrow();
            assertThatThrownBy(
                            () ->
                                    claim.finish(
                                            List.of(f.runFinished()),
                                            RunStatus.COMPLETED,
                                            Optional.empty()))
                    .hasMessageContaining("unreachable");

            assertThat(
                            claim.finish(
                                    List.of(f.runError("internal", "internal-error")),
                                    RunStatus.FAILED,
                                    Optional.empty()))
                    .isEqualTo(FinishResult.FINISHED);
        }
        assertThat(types(run.ref())).containsExactly("RUN_FINISHED");
        assertThat(fresh(run).status()).isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    @DisplayName(
            "the writer that ends a run tells its server once (its interrupts are cancelled); a second finish does not")
    void endingARunIsReportedOnceByTheWriterThatEndedIt() {
        RunRecordView run = newRun();
        List<RunRef> ended = new java.util.concurrent.CopyOnWriteArrayList<>();
        RunWriter writer = writer("node-a", leaseStore).onEnded(ended::add);
        try (RunWriter.Lease lease = writer.lease(run.ref()).orElseThrow()) {
            RunWriter.Claim claim = lease.claim().orElseThrow();
            assertThat(ended).isEmpty();
            claim.finish(List.of(), RunStatus.COMPLETED, Optional.empty());
            assertThat(claim.finish(List.of(), RunStatus.FAILED, Optional.empty()))
                    .isEqualTo(FinishResult.ALREADY_TERMINAL);
        }
        assertThat(ended).containsExactly(run.ref());
    }

    @Test
    @DisplayName(
            "while one server holds a run's driver lease, another gets no lease; once released, it does")
    void aHeldDriverLeaseKeepsEveryOtherWriterOut() {
        RunRecordView run = newRun();
        try (RunWriter.Lease held = nodeA.lease(run.ref()).orElseThrow()) {
            assertThat(nodeB.lease(run.ref())).isEmpty();
        }
        try (RunWriter.Lease taken = nodeB.lease(run.ref()).orElseThrow()) {
            assertThat(taken.lost()).isFalse();
        }
    }

    @Test
    @DisplayName(
            "a writer paused across a successor's claim can neither append nor finish: nothing of it lands")
    void aStaleEpochCanNeitherAppendNorFinish() {
        RunRecordView run = newRun();
        try (RunWriter.Lease lease = nodeA.lease(run.ref()).orElseThrow()) {
            RunWriter.Claim stale = lease.claim().orElseThrow();
            stale.append(chunks(run, 1));
            // A successor whose server saw the lease expire claims the run meanwhile.
            assertThat(runs.claim(run.ref(), "node-b")).hasValue(2);

            assertThatThrownBy(() -> stale.append(chunks(run, 1)))
                    .isInstanceOf(StaleEpochException.class);
            assertThat(stale.finish(List.of(), RunStatus.COMPLETED, Optional.empty()))
                    .isEqualTo(FinishResult.STALE_EPOCH);
            ChunkFactory f = new ChunkFactory(run.runId(), run.threadId(), clock::millis);
            assertThatThrownBy(
                            () ->
                                    stale.finish(
                                            List.of(f.runFinished()),
                                            RunStatus.COMPLETED,
                                            Optional.empty()))
                    .isInstanceOf(StaleEpochException.class);
        }
        assertThat(types(run.ref())).hasSize(1);
        assertThat(fresh(run).status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    @DisplayName(
            "a terminal record is final: a second finish writes nothing, and the run cannot be claimed again")
    void finishIsIdempotentAndATerminalRunIsNeverReclaimed() {
        RunRecordView run = newRun();
        try (RunWriter.Lease lease = nodeA.lease(run.ref()).orElseThrow()) {
            RunWriter.Claim claim = lease.claim().orElseThrow();
            assertThat(claim.finish(List.of(), RunStatus.COMPLETED, Optional.empty()))
                    .isEqualTo(FinishResult.FINISHED);
            Instant finishedAt = fresh(run).finishedAt().orElseThrow();

            assertThat(
                            claim.finish(
                                    List.of(),
                                    RunStatus.FAILED,
                                    Optional.of(RunError.of("late", "late"))))
                    .isEqualTo(FinishResult.ALREADY_TERMINAL);
            assertThat(fresh(run).status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(fresh(run).finishedAt()).hasValue(finishedAt);
            assertThat(fresh(run).error()).isEmpty();
        }
        try (RunWriter.Lease again = nodeB.lease(run.ref()).orElseThrow()) {
            assertThat(again.claim()).isEmpty();
        }
        assertThat(fresh(run).driverEpoch()).hasValue(1);
    }

    @Test
    @DisplayName(
            "a writer whose lease could not be renewed stops at once: its next append is refused before it reaches the log")
    void aLostLeaseRefusesTheNextAppend() {
        InMemoryLeaseStore forgetful =
                new InMemoryLeaseStore() {
                    @Override
                    public boolean renew(String name, String holder, Instant now, Duration ttl) {
                        return false;
                    }
                };
        RunWriter writer =
                new RunWriter(
                        new Leases(forgetful, clock, "node-a", scheduler),
                        runs,
                        runs,
                        hub,
                        clock,
                        "node-a",
                        TTL,
                        Duration.ofMillis(50));
        RunRecordView run = newRun();
        try (RunWriter.Lease lease = writer.lease(run.ref()).orElseThrow()) {
            RunWriter.Claim claim = lease.claim().orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(lease::lost);

            assertThatThrownBy(() -> claim.append(chunks(run, 1)))
                    .isInstanceOf(RunWriter.LeaseLostException.class);
        }
        assertThat(types(run.ref())).isEmpty();
    }

    @Test
    @DisplayName(
            "a cancel landed for a run nobody drives: teardown, then one RUN_ERROR and an aborted record under a new epoch")
    void aCancelWithNoLiveDriverEndsTheRunAbortedThroughTheProtocol() {
        RunRecordView run = newRun();
        runs.claim(run.ref(), "node-gone");
        List<RunRecordView> tornDown = new ArrayList<>();

        RunAbort.Aborted<String> a =
                RunAbort.abort(
                        context("node-b"),
                        run,
                        r -> true,
                        r -> {
                            tornDown.add(r);
                            return "destroyed";
                        },
                        RunAbort.CANCELLED);

        assertThat(a.ended()).isTrue();
        assertThat(a.teardown()).hasValue("destroyed");
        assertThat(tornDown).extracting(RunRecordView::runId).containsExactly(run.runId());
        assertThat(types(run.ref())).containsExactly("RUN_ERROR");
        assertThat(runs.read(run.ref(), 0, 1).get(0).chunk().getString("code"))
                .isEqualTo("aborted");
        RunRecordView after = fresh(run);
        assertThat(after.status()).isEqualTo(RunStatus.ABORTED);
        assertThat(after.error()).hasValue(RunAbort.CANCELLED);
        assertThat(after.driverEpoch()).hasValue(2);
        assertThat(nodeA.lease(run.ref())).as("the abort gave its lease up").isPresent();
    }

    @Test
    @DisplayName(
            "an abort finds the driver lease held (a live driver ends the run itself): no teardown, no claim, nothing written")
    void anAbortLeavesARunALiveDriverHolds() {
        RunRecordView run = newRun();
        try (RunWriter.Lease driving = nodeA.lease(run.ref()).orElseThrow()) {
            driving.claim().orElseThrow();

            RunAbort.Aborted<String> a =
                    RunAbort.abort(
                            context("node-b"),
                            run,
                            r -> true,
                            r -> "destroyed",
                            RunAbort.CANCELLED);

            assertThat(a.ended()).isFalse();
            assertThat(a.teardown()).isEmpty();
        }
        assertThat(types(run.ref())).isEmpty();
        assertThat(fresh(run).driverEpoch()).hasValue(1);
    }

    @Test
    @DisplayName(
            "expiry of a runaway run: aborted max-duration; a run no longer eligible (a viewer re-attached) is not claimed")
    void expiryAbortsOnlyAStillEligibleRun() {
        RunRecordView runaway =
                runs.create(
                                new NewRun(
                                        "tenant",
                                        "run-" + UUID.randomUUID(),
                                        "thread-1",
                                        Harness.COMMAND,
                                        clock.instant().minusSeconds(60),
                                        true,
                                        true,
                                        false,
                                        Optional.empty(),
                                        Optional.empty(),
                                        Optional.empty(),
                                        NewRun.randomNonce(),
                                        Optional.of(1_000L),
                                        false,
                                        JsonValue.EMPTY_JSON_ARRAY,
                                        Optional.empty()))
                        .orElseThrow();
        runs.setDetachedSince(runaway.ref(), Optional.of(clock.instant()));
        assertThat(RunAbort.pastMaxDuration(runaway, clock.instant())).isTrue();

        RunAbort.Aborted<String> reattached =
                RunAbort.abort(
                        context("node-b"),
                        runaway,
                        r -> r.detachedSince().isEmpty(),
                        r -> "destroyed",
                        RunAbort.maxDuration(runaway));
        assertThat(reattached.ended()).isFalse();
        assertThat(reattached.teardown()).isEmpty();
        assertThat(fresh(runaway).driverEpoch()).as("not claimed").isEmpty();

        RunAbort.Aborted<String> expired =
                RunAbort.abort(
                        context("node-b"),
                        runaway,
                        r -> r.detachedSince().isPresent(),
                        r -> "destroyed",
                        RunAbort.maxDuration(runaway));
        assertThat(expired.ended()).isTrue();
        assertThat(fresh(runaway).status()).isEqualTo(RunStatus.ABORTED);
        assertThat(fresh(runaway).error().flatMap(RunError::code)).hasValue("max-duration");
        assertThat(runs.read(runaway.ref(), 0, 1).get(0).chunk().getString("code"))
                .isEqualTo("max-duration");

        RunAbort.Aborted<String> again =
                RunAbort.abort(
                        context("node-b"),
                        runaway,
                        r -> true,
                        r -> "destroyed",
                        RunAbort.maxDuration(runaway));
        assertThat(again.ended()).as("terminal: nothing more to abort").isFalse();
        assertThat(types(runaway.ref())).containsExactly("RUN_ERROR");
    }

    @Test
    @DisplayName(
            "a run's driver lease is named after its stored record, not after the client's runId")
    void theDriverLeaseIsNamedAfterTheRunRecord() {
        RunRecordView run = newRun();
        try (RunWriter.Lease held = nodeA.lease(run.ref()).orElseThrow()) {
            assertThat(leaseStore.heldNames(LeaseNames.RUN_DRIVER_PREFIX, clock.instant()))
                    .containsExactly(LeaseNames.runDriver(run.ref().id()));
        }
    }

    @Test
    @DisplayName(
            "AL-09 a driver counts the service chunks at its log's end: each one takes room, a journal chunk gives it all back,"
                    + " a successor starts from the stored row")
    void aDriversRoomForServiceChunksIsWhatAReplayPassesOver() {
        RunRecordView run = newRun();
        ChunkFactory f = new ChunkFactory(run.runId(), run.threadId(), clock::millis);
        List<JsonObject> written = new ArrayList<>();
        try (RunWriter.Lease lease = nodeA.lease(run.ref()).orElseThrow()) {
            DriverWriter first = new DriverWriter(context("node-a"), run);
            first.claimed(lease.claim().orElseThrow(), null);
            assertThat(first.outOfBandRoom()).isEqualTo(Alignment.MAX_OUT_OF_BAND_SKIP);

            List<JsonObject> opening = List.of(f.runStarted(), ServiceChunks.runAccepted(f));
            first.emit(opening);
            written.addAll(opening);
            List<JsonObject> changes = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                changes.add(ServiceChunks.fileChanged(f, "/workspace/a" + i, "create"));
            }
            first.emitService(changes);
            written.addAll(changes);
            assertThat(first.outOfBandRoom()).isEqualTo(53);

            List<JsonObject> line = chunks(run, 1);
            first.emit(line);
            written.addAll(line);
            assertThat(first.outOfBandRoom()).isEqualTo(64);

            List<JsonObject> storm = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                storm.add(ServiceChunks.fileChanged(f, "/workspace/b" + i, "create"));
            }
            first.emitService(storm);
            written.addAll(storm);
            assertThat(first.outOfBandRoom()).isEqualTo(4);
        }
        try (RunWriter.Lease lease = nodeB.lease(run.ref()).orElseThrow()) {
            DriverWriter successor = new DriverWriter(context("node-b"), run);
            successor.claimed(
                    lease.claim().orElseThrow(),
                    Alignment.ofStoredChunks(written, run.runId(), run.threadId()));
            assertThat(successor.outOfBandRoom()).isEqualTo(4);
        }
    }

    @Test
    @DisplayName(
            "this server's readers are woken by the terminal chunk only once the terminal record is written (RD-06)")
    void theTerminalChunkReachesThisServersReadersAfterTheTerminalRecord() throws Exception {
        RunRecordView run = newRun();
        // A slow record write: a reader woken by the terminal chunk before it would find the
        // run still running.
        RunWriter writer = writerOver(new HookedLog(runs, () -> sleep(300)));
        ChunkFactory f = new ChunkFactory(run.runId(), run.threadId(), clock::millis);
        try (RunWriter.Lease lease = writer.lease(run.ref()).orElseThrow()) {
            RunWriter.Claim claim = lease.claim().orElseThrow();
            claim.append(chunks(run, 1));
            RunEventHub.Waiter woken = hub.register(run.ref());
            java.util.concurrent.CompletableFuture<RunStatus> seen =
                    java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    woken.await(10_000);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                                return fresh(run).status();
                            });
            claim.finish(List.of(f.runFinished()), RunStatus.COMPLETED, Optional.empty());
            assertThat(seen.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isEqualTo(RunStatus.COMPLETED);
            woken.close();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The in-memory log, with {@code beforeFinish} run before each terminal record write. */
    private static final class HookedLog implements dev.agentbox.run.store.EventLog {
        private final InMemoryRuns runs;
        private final Runnable beforeFinish;

        HookedLog(InMemoryRuns runs, Runnable beforeFinish) {
            this.runs = runs;
            this.beforeFinish = beforeFinish;
        }

        @Override
        public List<LoggedChunk> append(RunRef r, long epoch, List<JsonObject> c) {
            return runs.append(r, epoch, c);
        }

        @Override
        public FinishResult finishRun(
                RunRef r, long epoch, RunStatus status, Instant at, Optional<RunError> error) {
            beforeFinish.run();
            return runs.finishRun(r, epoch, status, at, error);
        }

        @Override
        public List<LoggedChunk> read(RunRef r, long after, int limit) {
            return runs.read(r, after, limit);
        }

        @Override
        public long size(RunRef r) {
            return runs.size(r);
        }

        @Override
        public long lastSeq(RunRef r) {
            return runs.lastSeq(r);
        }

        @Override
        public List<dev.agentbox.run.store.StoredChunk> fingerprints(RunRef r) {
            return runs.fingerprints(r);
        }
    }
}
