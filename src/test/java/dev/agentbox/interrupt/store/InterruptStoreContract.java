package dev.agentbox.interrupt.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.interrupt.store.Answer.Outcome;
import dev.agentbox.platform.TestDatabase;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.testing.SettableClock;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The behaviour every {@link InterruptStore} must have; run on embedded Derby and on PostgreSQL. A
 * settable clock stands in for time (expiry). AP-03, AP-05, AP-07 (the store's part).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InterruptStoreContract {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration TTL = Duration.ofMinutes(10);
    static final JsonObject ARGS = Json.createObjectBuilder().add("command", "rm -rf /").build();
    static final JsonObject APPROVED = Json.createObjectBuilder().add("approved", true).build();
    static final JsonObject DENIED = Json.createObjectBuilder().add("approved", false).build();

    protected abstract TestDatabase.Kind kind();

    private TestDatabase db;
    private InterruptStore store;
    private RunStore runs;
    private final SettableClock clock = new SettableClock(T0);
    private final String tenant = "tenant-" + UUID.randomUUID();
    private RunRef run;

    @BeforeAll
    void open() {
        db = TestDatabase.open(kind());
        store = db.transactional(InterruptStore.class, JpaInterruptStore::new);
        runs = db.transactional(RunStore.class, JpaRunStore::new);
    }

    @AfterAll
    void close() {
        db.close();
    }

    @BeforeEach
    void newRun() {
        // A clean table per test: expiry is bounded per call across all runs, so rows left by
        // other tests (or by an earlier build on the same PostgreSQL) would be expired first.
        db.clear(InterruptRow.class);
        clock.set(T0);
        run = createRun("r-" + UUID.randomUUID());
    }

    private RunRef createRun(String runId) {
        return runs.create(NewRun.durable(tenant, runId, "t", Harness.COMMAND, T0))
                .orElseThrow()
                .ref();
    }

    private NewInterrupt waitOf(RunRef r, String callKey) {
        return new NewInterrupt(
                r,
                tenant,
                "r",
                callKey,
                "approval",
                Optional.of("call-" + callKey),
                "Bash",
                ARGS,
                clock.instant(),
                clock.instant().plus(TTL));
    }

    @Test
    void anOpenedInterruptIsPendingWithEverythingItWasOpenedWith() {
        Interrupt i = store.open(waitOf(run, "k1"));

        assertThat(i.status()).isEqualTo(InterruptStatus.PENDING);
        assertThat(i.payload()).isEmpty();
        assertThat(i.answeredAt()).isEmpty();
        assertThat(store.find(run, i.id())).contains(i);
        assertThat(store.pending(run)).containsExactly(i);
        assertThat(i.toJson())
                .isEqualTo(
                        Json.createObjectBuilder()
                                .add("id", i.id())
                                .add("reason", "approval")
                                .add("toolCallId", "call-k1")
                                .add("tool", "Bash")
                                .add("arguments", ARGS)
                                .add("expiresAt", T0.plus(TTL).toString())
                                .build());
    }

    @Test
    void openingTheSameCallTwiceReturnsTheSameInterruptEvenAfterItWasAnswered() {
        Interrupt first = store.open(waitOf(run, "k1"));
        clock.advance(Duration.ofSeconds(5));

        assertThat(store.open(waitOf(run, "k1")).id()).isEqualTo(first.id());
        store.answer(run, first.id(), InterruptStatus.RESOLVED, Optional.of(APPROVED), T0);
        Interrupt again = store.open(waitOf(run, "k1"));
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(again.status()).isEqualTo(InterruptStatus.RESOLVED);
        assertThat(store.open(waitOf(run, "k2")).id()).isNotEqualTo(first.id());
        assertThat(store.open(waitOf(createRun("other-" + UUID.randomUUID()), "k1")).id())
                .as("callKey is unique per run, not globally")
                .isNotEqualTo(first.id());
    }

    @Test
    void twoServersOpeningTheSameCallAtOnceStoreOneRow() throws Exception {
        int servers = 4;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(servers);
        try {
            List<Future<String>> ids = new ArrayList<>();
            for (int s = 0; s < servers; s++) {
                Callable<String> open =
                        () -> {
                            start.await();
                            try {
                                return store.open(waitOf(run, "race")).id();
                            } catch (RuntimeException lost) {
                                // The unique constraint failed this insert: re-read, as the
                                // gate does.
                                return store.findByCallKey(run, "race").orElseThrow().id();
                            }
                        };
                ids.add(pool.submit(open));
            }
            start.countDown();
            String winner = ids.get(0).get();
            for (Future<String> f : ids) {
                assertThat(f.get()).isEqualTo(winner);
            }
            assertThat(store.pending(run)).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSameAnswerTwiceSucceedsAndADifferentOneAfterItConflicts() {
        Interrupt i = store.open(waitOf(run, "k1"));
        Instant at = T0.plusSeconds(3);

        Answer first =
                store.answer(run, i.id(), InterruptStatus.RESOLVED, Optional.of(APPROVED), at);
        assertThat(first.outcome()).isEqualTo(Outcome.ANSWERED);
        assertThat(first.interrupt().orElseThrow().payload()).contains(APPROVED);
        assertThat(first.interrupt().orElseThrow().answeredAt()).contains(at);

        JsonObject sameReordered = Json.createObjectBuilder().add("approved", true).build();
        assertThat(
                        store.answer(
                                        run,
                                        i.id(),
                                        InterruptStatus.RESOLVED,
                                        Optional.of(sameReordered),
                                        at.plusSeconds(1))
                                .outcome())
                .isEqualTo(Outcome.ALREADY);
        assertThat(
                        store.answer(run, i.id(), InterruptStatus.RESOLVED, Optional.of(DENIED), at)
                                .outcome())
                .isEqualTo(Outcome.CONFLICT);
        assertThat(
                        store.answer(run, i.id(), InterruptStatus.CANCELLED, Optional.empty(), at)
                                .outcome())
                .isEqualTo(Outcome.CONFLICT);
        Interrupt stored = store.find(run, i.id()).orElseThrow();
        assertThat(stored.payload()).contains(APPROVED);
        assertThat(stored.answeredAt()).as("the first answer's time stays").contains(at);
        assertThat(store.pending(run)).isEmpty();
    }

    @Test
    void aCancelWithoutPayloadRepeatedIsTheSameAnswer() {
        Interrupt i = store.open(waitOf(run, "k1"));

        assertThat(
                        store.answer(run, i.id(), InterruptStatus.CANCELLED, Optional.empty(), T0)
                                .outcome())
                .isEqualTo(Outcome.ANSWERED);
        assertThat(
                        store.answer(run, i.id(), InterruptStatus.CANCELLED, Optional.empty(), T0)
                                .outcome())
                .isEqualTo(Outcome.ALREADY);
        assertThat(
                        store.answer(
                                        run,
                                        i.id(),
                                        InterruptStatus.CANCELLED,
                                        Optional.of(DENIED),
                                        T0)
                                .outcome())
                .as("a payload makes it another answer")
                .isEqualTo(Outcome.CONFLICT);
    }

    @Test
    void concurrentDifferentAnswersLetExactlyOneWin() throws Exception {
        Interrupt i = store.open(waitOf(run, "k1"));
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Outcome> yes =
                    pool.submit(
                            () -> {
                                start.await();
                                return store.answer(
                                                run,
                                                i.id(),
                                                InterruptStatus.RESOLVED,
                                                Optional.of(APPROVED),
                                                T0)
                                        .outcome();
                            });
            Future<Outcome> no =
                    pool.submit(
                            () -> {
                                start.await();
                                return store.answer(
                                                run,
                                                i.id(),
                                                InterruptStatus.RESOLVED,
                                                Optional.of(DENIED),
                                                T0)
                                        .outcome();
                            });
            start.countDown();
            assertThat(List.of(yes.get(), no.get()))
                    .containsExactlyInAnyOrder(Outcome.ANSWERED, Outcome.CONFLICT);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anUnknownInterruptOrAnotherRunsIsNotFound() {
        Interrupt i = store.open(waitOf(run, "k1"));
        RunRef other = createRun("other-" + UUID.randomUUID());

        assertThat(store.answer(run, "nope", InterruptStatus.RESOLVED, Optional.empty(), T0))
                .isEqualTo(new Answer(Outcome.NOT_FOUND, Optional.empty()));
        assertThat(
                        store.answer(other, i.id(), InterruptStatus.RESOLVED, Optional.empty(), T0)
                                .outcome())
                .isEqualTo(Outcome.NOT_FOUND);
        assertThat(store.find(other, i.id())).isEmpty();
        assertThat(store.find(run, i.id()).orElseThrow().pending()).isTrue();
    }

    @Test
    void anAnswerAtOrAfterExpiresAtIsRefusedAndCancelsItAsExpired() {
        Interrupt i = store.open(waitOf(run, "k1"));

        Answer late =
                store.answer(
                        run, i.id(), InterruptStatus.RESOLVED, Optional.of(APPROVED), T0.plus(TTL));

        assertThat(late.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(late.interrupt().orElseThrow().status()).isEqualTo(InterruptStatus.EXPIRED);
        assertThat(late.interrupt().orElseThrow().status().apiStatus()).isEqualTo("cancelled");
        assertThat(late.interrupt().orElseThrow().payload()).isEmpty();
    }

    @Test
    void expiryMarksOnlyPendingInterruptsPastTheirTimeBoundedPerCall() {
        Interrupt early = store.open(waitOf(run, "k1"));
        clock.advance(Duration.ofMinutes(1));
        Interrupt later = store.open(waitOf(run, "k2"));
        clock.advance(Duration.ofMinutes(1));
        Interrupt answered = store.open(waitOf(run, "k3"));
        store.answer(run, answered.id(), InterruptStatus.CANCELLED, Optional.empty(), T0);

        assertThat(store.expireDue(T0.plus(TTL).minusMillis(1), 100)).isZero();
        assertThat(store.expireDue(T0.plus(TTL).plusSeconds(300), 1)).isEqualTo(1);
        assertThat(store.find(run, early.id()).orElseThrow().status())
                .as("the longest due goes first")
                .isEqualTo(InterruptStatus.EXPIRED);
        assertThat(store.find(run, later.id()).orElseThrow().pending()).isTrue();
        assertThat(store.expireDue(T0.plus(TTL).plusSeconds(300), 100)).isEqualTo(1);
        assertThat(store.find(run, later.id()).orElseThrow().status())
                .isEqualTo(InterruptStatus.EXPIRED);
        assertThat(store.find(run, answered.id()).orElseThrow().status())
                .isEqualTo(InterruptStatus.CANCELLED);
        assertThat(
                        store.answer(
                                        run,
                                        early.id(),
                                        InterruptStatus.RESOLVED,
                                        Optional.of(APPROVED),
                                        T0)
                                .outcome())
                .as("an expired interrupt takes no answer, even one dated before its expiry")
                .isEqualTo(Outcome.CONFLICT);
    }

    @Test
    void cancellingARunsInterruptsLeavesAnsweredOnesAndOtherRunsAlone() {
        Interrupt a = store.open(waitOf(run, "k1"));
        Interrupt b = store.open(waitOf(run, "k2"));
        store.answer(run, b.id(), InterruptStatus.RESOLVED, Optional.of(APPROVED), T0);
        RunRef other = createRun("other-" + UUID.randomUUID());
        Interrupt c = store.open(waitOf(other, "k1"));

        assertThat(store.cancelPending(run, T0.plusSeconds(1))).isEqualTo(1);

        assertThat(store.find(run, a.id()).orElseThrow().status())
                .isEqualTo(InterruptStatus.CANCELLED);
        assertThat(store.find(run, b.id()).orElseThrow().status())
                .isEqualTo(InterruptStatus.RESOLVED);
        assertThat(store.find(other, c.id()).orElseThrow().pending()).isTrue();
        assertThat(store.cancelPending(run, T0.plusSeconds(2))).isZero();
    }

    @Test
    void theInterruptsOfARunThatEndedAreCancelled() {
        Interrupt live = store.open(waitOf(run, "k1"));
        RunRef ended = createRun("ended-" + UUID.randomUUID());
        Interrupt orphan = store.open(waitOf(ended, "k1"));
        db.inTransaction(
                em ->
                        em.createQuery(
                                        "UPDATE RunRecord r SET r.status ="
                                                + " dev.agentbox.run.store.RunStatus.COMPLETED"
                                                + " WHERE r.runPk = :pk")
                                .setParameter("pk", ended.id())
                                .executeUpdate());

        assertThat(store.cancelOfEndedRuns(T0, 1000)).isGreaterThanOrEqualTo(1);

        assertThat(store.find(ended, orphan.id()).orElseThrow().status())
                .isEqualTo(InterruptStatus.CANCELLED);
        assertThat(store.find(run, live.id()).orElseThrow().pending()).isTrue();
    }
}
