package dev.agentbox.run.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.run.harness.Chunks;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link EventLog} must have: ordered append-only logs and the airtight epoch
 * fence (TK-04, TK-05, TK-07, TK-10); run in memory, on Derby and on PostgreSQL.
 */
public abstract class EventLogContract extends RunStoresFixture {

    @Test
    void appendAssignsSeqsFromOneWithoutGapsAcrossBatches() {
        RunRef run = claimedRun();
        List<LoggedChunk> first = log.append(run, 1, chunks("a", 3));
        List<LoggedChunk> second = log.append(run, 1, chunks("b", 2));
        assertThat(first).extracting(LoggedChunk::seq).containsExactly(1L, 2L, 3L);
        assertThat(second).extracting(LoggedChunk::seq).containsExactly(4L, 5L);
        assertThat(log.size(run)).isEqualTo(5);
        assertThat(log.lastSeq(run)).isEqualTo(5);
    }

    @Test
    void readReplaysTheChunksAsAppendedAfterASeqInOrderUpToALimit() {
        RunRef run = claimedRun();
        List<JsonObject> appended = chunks("c", 5);
        log.append(run, 1, appended);

        List<LoggedChunk> all = log.read(run, 0, 100);
        assertThat(all).extracting(LoggedChunk::chunk).containsExactlyElementsOf(appended);
        assertThat(all).extracting(LoggedChunk::type).containsOnly("TEXT_MESSAGE_CONTENT");
        assertThat(log.read(run, 2, 2)).extracting(LoggedChunk::seq).containsExactly(3L, 4L);
        assertThat(log.read(run, 5, 10)).isEmpty();
        assertThatThrownBy(() -> log.read(run, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEmptyLogHasSizeAndLastSeqZero() {
        RunRef run = claimedRun();
        assertThat(log.size(run)).isZero();
        assertThat(log.lastSeq(run)).isZero();
        assertThat(log.read(run, 0, 10)).isEmpty();
        assertThat(log.fingerprints(run)).isEmpty();
    }

    @Test
    void fingerprintsAreTheTypeAndTimestampFreeFingerprintOfEveryChunkInOrder() {
        RunRef run = claimedRun();
        JsonObject accepted =
                Json.createObjectBuilder()
                        .add("type", "CUSTOM")
                        .add("name", "run.accepted")
                        .add("value", Json.createObjectBuilder())
                        .add("timestamp", 1)
                        .build();
        JsonObject text = chunk("TEXT_MESSAGE_CONTENT", "hi", 2);
        log.append(run, 1, List.of(accepted, text));

        assertThat(log.fingerprints(run))
                .containsExactly(StoredChunk.of(accepted), StoredChunk.of(text));
        assertThat(log.fingerprints(run).get(1).fingerprint())
                .isEqualTo(Chunks.fingerprint(chunk("TEXT_MESSAGE_CONTENT", "hi", 999)));
    }

    /** AL-06: the mark alignment passes service chunks over by, and only theirs. */
    @Test
    void chunksWithAServiceNameAreMarkedAsTheServicesWhenAppended() {
        RunRef run = claimedRun();
        JsonObject fileChanged =
                Json.createObjectBuilder()
                        .add("type", "CUSTOM")
                        .add("name", "file.changed")
                        .add(
                                "value",
                                Json.createObjectBuilder()
                                        .add("path", "/workspace/a")
                                        .add("kind", "create"))
                        .build();
        JsonObject accepted =
                Json.createObjectBuilder()
                        .add("type", "CUSTOM")
                        .add("name", "run.accepted")
                        .add("value", Json.createObjectBuilder())
                        .build();
        JsonObject output =
                Json.createObjectBuilder()
                        .add("type", "CUSTOM")
                        .add("name", "agent.output")
                        .add("value", fileChanged)
                        .build();
        log.append(run, 1, List.of(accepted, chunk("TEXT_MESSAGE_CONTENT", "hi", 2)));
        log.append(run, 1, List.of(fileChanged, output));

        assertThat(log.fingerprints(run))
                .extracting(StoredChunk::service)
                .containsExactly(true, false, true, false);
    }

    @Test
    void theLogsOfTwoRunsAreIndependent() {
        RunRef a = claimedRun();
        RunRef b = claimedRun();
        log.append(a, 1, chunks("a", 2));
        log.append(b, 1, chunks("b", 1));
        assertThat(log.read(b, 0, 10)).extracting(LoggedChunk::seq).containsExactly(1L);
        assertThat(log.size(a)).isEqualTo(2);
    }

    @Test
    void aLargeChunkRoundTripsIntact() {
        RunRef run = claimedRun();
        JsonObject big =
                Json.createObjectBuilder()
                        .add("type", "TOOL_CALL_RESULT")
                        .add("toolCallId", "t")
                        .add("messageId", "m")
                        .add("content", "é∑🙂\n".repeat(60_000))
                        .build();
        log.append(run, 1, List.of(big));
        assertThat(log.read(run, 0, 1).get(0).chunk()).isEqualTo(big);
    }

    @Test
    void aChunkWithoutAStringTypeFailsTheWholeBatch() {
        RunRef run = claimedRun();
        List<JsonObject> batch = new ArrayList<>(chunks("ok", 2));
        batch.add(Json.createObjectBuilder().add("type", 3).build());
        assertThatThrownBy(() -> log.append(run, 1, batch))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(log.size(run)).isZero();
    }

    @Test
    void appendBeforeAnyClaimIsRefused() {
        RunRef run = create("r-unclaimed").ref();
        assertThatThrownBy(() -> log.append(run, 0, chunks("x", 1)))
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> log.append(run, 1, chunks("x", 1)))
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> log.append(new RunRef("no-such-run"), 1, chunks("x", 1)))
                .isInstanceOf(StaleEpochException.class);
        assertThat(log.size(run)).isZero();
    }

    @Test
    void appendWithAStaleEpochIsRefusedAndWritesNothing() {
        RunRef run = claimedRun();
        log.append(run, 1, chunks("a", 2));
        assertThat(claims.claim(run, "node-b")).hasValue(2);

        assertThatThrownBy(() -> log.append(run, 1, chunks("stale", 3)))
                .isInstanceOfSatisfying(
                        StaleEpochException.class,
                        e -> {
                            assertThat(e.heldEpoch()).isEqualTo(1);
                            assertThat(e.currentEpoch()).hasValue(2);
                            assertThat(e.run()).isEqualTo(run);
                        });
        assertThatThrownBy(() -> log.append(run, 1, List.of()))
                .as("even an empty batch checks the fence")
                .isInstanceOf(StaleEpochException.class);
        assertThat(log.size(run)).isEqualTo(2);

        assertThat(log.append(run, 2, chunks("b", 1)))
                .extracting(LoggedChunk::seq)
                .containsExactly(3L);
        assertThat(log.read(run, 0, 10))
                .extracting(c -> c.chunk().getString("delta"))
                .containsExactly("a-0", "a-1", "b-0");
    }

    @Test
    void anEpochFromTheFutureIsRefusedToo() {
        RunRef run = claimedRun();
        assertThatThrownBy(() -> log.append(run, 2, chunks("x", 1)))
                .isInstanceOf(StaleEpochException.class);
        assertThat(log.finishRun(run, 2, RunStatus.COMPLETED, T0, Optional.empty()))
                .isEqualTo(FinishResult.STALE_EPOCH);
    }

    @Test
    void finishRunWithAStaleEpochReturnsNormallyAndWritesNothing() {
        RunRef run = claimedRun();
        claims.claim(run, "node-b");
        long versionBefore = runs.findById(run).orElseThrow().version();

        assertThat(
                        log.finishRun(
                                run,
                                1,
                                RunStatus.FAILED,
                                T0.plusSeconds(1),
                                Optional.of(RunError.of("a died"))))
                .isEqualTo(FinishResult.STALE_EPOCH);
        RunRecordView untouched = runs.findById(run).orElseThrow();
        assertThat(untouched.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(untouched.finishedAt()).isEmpty();
        assertThat(untouched.error()).isEmpty();
        assertThat(untouched.version()).isEqualTo(versionBefore);

        assertThat(log.finishRun(run, 2, RunStatus.COMPLETED, T0.plusSeconds(2), Optional.empty()))
                .isEqualTo(FinishResult.FINISHED);
        RunRecordView done = runs.findById(run).orElseThrow();
        assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(done.driverEpoch()).hasValue(2);
    }

    @Test
    void aTerminalRecordIsFinal() {
        RunRef run = claimedRun();
        log.finishRun(
                run,
                1,
                RunStatus.ABORTED,
                T0.plusSeconds(1),
                Optional.of(RunError.of("cancelled", "cancelled")));
        assertThat(log.finishRun(run, 1, RunStatus.COMPLETED, T0.plusSeconds(2), Optional.empty()))
                .isEqualTo(FinishResult.ALREADY_TERMINAL);
        RunRecordView record = runs.findById(run).orElseThrow();
        assertThat(record.status()).isEqualTo(RunStatus.ABORTED);
        assertThat(record.finishedAt()).contains(T0.plusSeconds(1));
        assertThat(record.error()).contains(RunError.of("cancelled", "cancelled"));
    }

    @Test
    void finishRunRejectsANonTerminalStatus() {
        RunRef run = claimedRun();
        assertThatThrownBy(() -> log.finishRun(run, 1, RunStatus.INTERRUPTED, T0, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(runs.findById(run).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void cancelDetachAndUsageWritesNeverFenceOutTheLiveDriver() {
        RunRef run = claimedRun();
        log.append(run, 1, chunks("a", 1));
        runs.setCancelRequested(run, Optional.of(true));
        log.append(run, 1, chunks("b", 1));
        runs.setDetachedSince(run, Optional.of(T0));
        runs.setSandboxKey(run, Optional.of("sbx"));
        log.append(run, 1, chunks("c", 1));
        runs.setUsage(run, Optional.of(Json.createObjectBuilder().add("inputTokens", 5).build()));
        runs.setDetachedSince(run, Optional.empty());

        assertThat(
                        log.finishRun(
                                run,
                                1,
                                RunStatus.ABORTED,
                                T0.plusSeconds(3),
                                Optional.of(RunError.of("cancelled"))))
                .isEqualTo(FinishResult.FINISHED);
        RunRecordView record = runs.findById(run).orElseThrow();
        assertThat(log.size(run)).isEqualTo(3);
        assertThat(record.driverEpoch()).hasValue(1);
        assertThat(record.cancelRequested())
                .as("finishing keeps the sibling fields")
                .contains(true);
        assertThat(record.sandboxKey()).contains("sbx");
        assertThat(record.usage()).isPresent();
    }

    /** TK-06: a stale driver's non-terminal writes pass; the new driver overwrites them. */
    @Test
    void aStaleDriversNonTerminalRecordWritesPassAndTheNewDriverOverwritesThem() {
        RunRef run = claimedRun();
        claims.claim(run, "node-b");
        assertThat(runs.setDetachedSince(run, Optional.of(T0))).isTrue();
        assertThat(runs.setSandboxKey(run, Optional.of("sbx-a"))).isTrue();
        runs.setDetachedSince(run, Optional.empty());
        runs.setSandboxKey(run, Optional.of("sbx-b"));
        RunRecordView record = runs.findById(run).orElseThrow();
        assertThat(record.detachedSince()).isEmpty();
        assertThat(record.sandboxKey()).contains("sbx-b");
        assertThat(record.driverEpoch()).hasValue(2);
    }

    /**
     * The gap the fence exists for: the old driver has checked its epoch inside its append
     * transaction and is paused there (GC, SIGSTOP) when a successor claims. The claim must wait
     * for the paused append (it needs the same row lock), so the append lands entirely before the
     * new epoch begins, and the old epoch is refused from then on.
     */
    @Test
    void aClaimWaitsForAnAppendPausedAfterItsFenceCheckAndTheOldEpochIsRefusedAfterwards()
            throws Exception {
        RunRef run = claimedRun();
        log.append(run, 1, chunks("a", 2));
        CountDownLatch inGap = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        afterFenceCheck =
                () -> {
                    inGap.countDown();
                    await(release);
                };
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<List<LoggedChunk>> paused =
                    pool.submit(() -> log.append(run, 1, chunks("gap", 3)));
            assertThat(inGap.await(10, TimeUnit.SECONDS)).isTrue();
            afterFenceCheck = () -> {};
            Future<Long> successor = pool.submit(() -> claims.claim(run, "node-b").orElseThrow());

            assertThatThrownBy(() -> successor.get(300, TimeUnit.MILLISECONDS))
                    .as("the claim must wait for the in-flight fenced append")
                    .isInstanceOf(TimeoutException.class);
            release.countDown();

            assertThat(paused.get(10, TimeUnit.SECONDS))
                    .extracting(LoggedChunk::seq)
                    .containsExactly(3L, 4L, 5L);
            assertThat(successor.get(10, TimeUnit.SECONDS)).isEqualTo(2);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
        assertThatThrownBy(() -> log.append(run, 1, chunks("late", 1)))
                .isInstanceOf(StaleEpochException.class);
        log.append(run, 2, chunks("b", 1));
        assertThat(log.read(run, 0, 100))
                .extracting(c -> c.chunk().getString("delta"))
                .containsExactly("a-0", "a-1", "gap-0", "gap-1", "gap-2", "b-0");
    }

    /**
     * The same gap for the terminal update: a claim racing a paused finishRun sees the terminal
     * status and is refused.
     */
    @Test
    void aClaimRacingAPausedFinishSeesTheTerminalRunAndIsRefused() throws Exception {
        RunRef run = claimedRun();
        CountDownLatch inGap = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        afterFenceCheck =
                () -> {
                    inGap.countDown();
                    await(release);
                };
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<FinishResult> finishing =
                    pool.submit(
                            () ->
                                    log.finishRun(
                                            run,
                                            1,
                                            RunStatus.COMPLETED,
                                            T0.plusSeconds(1),
                                            Optional.empty()));
            assertThat(inGap.await(10, TimeUnit.SECONDS)).isTrue();
            afterFenceCheck = () -> {};
            Future<Boolean> successor = pool.submit(() -> claims.claim(run, "node-b").isPresent());
            assertThatThrownBy(() -> successor.get(300, TimeUnit.MILLISECONDS))
                    .isInstanceOf(TimeoutException.class);
            release.countDown();

            assertThat(finishing.get(10, TimeUnit.SECONDS)).isEqualTo(FinishResult.FINISHED);
            assertThat(successor.get(10, TimeUnit.SECONDS))
                    .as("a finished run is never re-claimed")
                    .isFalse();
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
        assertThat(claims.epoch(run)).hasValue(1);
        assertThat(runs.findById(run).orElseThrow().status()).isEqualTo(RunStatus.COMPLETED);
    }

    /**
     * An old driver appending as fast as it can while a successor claims and appends: every append
     * of the old epoch either committed before the claim or was refused, so the log is all of the
     * old driver's accepted chunks followed by the new driver's, never interleaved, never both for
     * the same range.
     */
    @Test
    void underARacingClaimTheOldEpochsChunksAllPrecedeTheNewEpochs() throws Exception {
        RunRef run = claimedRun();
        List<String> acceptedOld = new ArrayList<>();
        AtomicBoolean refused = new AtomicBoolean();
        CompletableFuture<Void> oldDriver =
                CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < 1000 && !refused.get(); i++) {
                                try {
                                    log.append(
                                            run,
                                            1,
                                            List.of(chunk("TEXT_MESSAGE_CONTENT", "old-" + i, i)));
                                    acceptedOld.add("old-" + i);
                                } catch (StaleEpochException e) {
                                    refused.set(true);
                                }
                            }
                        });
        while (log.size(run) < 5 && !oldDriver.isDone()) {
            Thread.onSpinWait();
        }
        long epoch = claims.claim(run, "node-b").orElseThrow();
        log.append(
                run,
                epoch,
                List.of(
                        chunk("TEXT_MESSAGE_CONTENT", "new-0", 0),
                        chunk("TEXT_MESSAGE_CONTENT", "new-1", 1)));
        oldDriver.get(30, TimeUnit.SECONDS);

        assertThat(refused).as("the old driver was fenced out").isTrue();
        List<String> expected = new ArrayList<>(acceptedOld);
        expected.addAll(List.of("new-0", "new-1"));
        assertThat(log.read(run, 0, 10_000))
                .extracting(c -> c.chunk().getString("delta"))
                .containsExactlyElementsOf(expected);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
