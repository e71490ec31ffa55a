package dev.agentbox.interrupt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.interrupt.store.InterruptStore;
import dev.agentbox.interrupt.store.JpaInterruptStore;
import dev.agentbox.platform.TestDatabase;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.testing.SettableClock;
import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.ToolCall;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The approval gate on a real store (embedded Derby) with a settable clock. "Another server" is a
 * second {@link InterruptWaits} and gate on the same database; polls are called by hand unless a
 * test is about the timer. AP-02..AP-04, AP-07.
 */
class ApprovalGateTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration TTL = Duration.ofMinutes(5);
    static final InterruptSettings BY_HAND = new InterruptSettings(TTL, Duration.ofHours(1), 10);
    static final JsonObject ARGS = Json.createObjectBuilder().add("command", "ls").build();
    static final String RULES =
            "[{\"tool\":\"Read\",\"decision\":\"allow\"},{\"tool\":\"rm*\",\"decision\":\"deny\"},"
                    + "{\"tool\":\"*\",\"decision\":\"ask\"}]";

    private static TestDatabase db;
    private static InterruptStore store;
    private static RunStore runs;

    private final SettableClock clock = new SettableClock(T0);
    private final List<String[]> chunks = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService timer;
    private InterruptWaits waits;
    private RunRecordView run;

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
        store = db.transactional(InterruptStore.class, JpaInterruptStore::new);
        runs = db.transactional(RunStore.class, JpaRunStore::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void start() {
        timer = Executors.newSingleThreadScheduledExecutor();
        waits = new InterruptWaits(store, runs, clock, BY_HAND, timer);
        run = newRun(RULES);
    }

    @AfterEach
    void stop() {
        waits.close();
        timer.shutdownNow();
    }

    private static RunRecordView newRun(String rules) {
        return runs.create(
                        new NewRun(
                                "tenant-gate",
                                "r-" + UUID.randomUUID(),
                                "t",
                                Harness.COMMAND,
                                T0,
                                true,
                                true,
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                NewRun.randomNonce(),
                                Optional.empty(),
                                false,
                                Json.createReader(new java.io.StringReader(rules)).readArray(),
                                Optional.empty()))
                .orElseThrow();
    }

    private ApprovalGate gate(InterruptWaits on) {
        return gate(on, chunks);
    }

    /** A gate of another driver of the run, whose chunks go to {@code sink}. */
    private ApprovalGate gate(InterruptWaits on, List<String[]> sink) {
        return new ApprovalGate(
                run, store, on, (n, v) -> sink.add(new String[] {n, v.toString()}), clock, TTL);
    }

    private ToolCall call(String key, String tool) {
        return new ToolCall(run.runId(), key, tool, ARGS);
    }

    private static GateDecision now(java.util.concurrent.CompletionStage<GateDecision> d) {
        CompletableFuture<GateDecision> f = d.toCompletableFuture();
        assertThat(f).as("decided at once").isDone();
        return f.join();
    }

    private List<String> chunkNames() {
        return chunks.stream().map(c -> c[0]).toList();
    }

    private Interrupt onlyPending() {
        List<Interrupt> pending = store.pending(run.ref());
        assertThat(pending).hasSize(1);
        return pending.get(0);
    }

    @Test
    void aToolTheRulesAllowOrNoRuleMatchesRunsAtOnce() {
        assertThat(now(gate(waits).admit(call("k1", "Read")))).isEqualTo(GateDecision.allow());
        run = newRun("[]");
        assertThat(now(gate(waits).admit(call("k2", "Bash")))).isEqualTo(GateDecision.allow());

        assertThat(chunkNames()).containsExactly("approval.decided", "approval.decided");
        assertThat(chunks.get(0)[1]).contains("\"approved\":true").contains("\"by\":\"rule\"");
        assertThat(store.pending(run.ref())).isEmpty();
    }

    @Test
    void aToolTheRulesDenyIsRefusedWithAReason() {
        GateDecision d = now(gate(waits).admit(call("k1", "rm_all")));

        assertThat(d.allowed()).isFalse();
        assertThat(d.reason()).contains("approval rule");
        assertThat(chunks.get(0)[1]).contains("\"approved\":false");
    }

    @Test
    void askOpensAnInterruptAndAnApprovalWithEditedArgumentsRunsTheEditedCall() {
        CompletableFuture<GateDecision> d =
                gate(waits).admit(call("k1", "Bash")).toCompletableFuture();

        Interrupt i = onlyPending();
        assertThat(d).isNotDone();
        assertThat(i.tool()).isEqualTo("Bash");
        assertThat(i.arguments()).isEqualTo(ARGS);
        assertThat(i.reason()).isEqualTo("approval");
        assertThat(i.expiresAt()).isEqualTo(T0.plus(TTL));
        assertThat(chunks.get(0)).containsExactly("interrupt.requested", i.toJson().toString());

        JsonObject edited = Json.createObjectBuilder().add("command", "ls -la").build();
        store.answer(
                run.ref(),
                i.id(),
                InterruptStatus.RESOLVED,
                Optional.of(
                        Json.createObjectBuilder()
                                .add("approved", true)
                                .add("arguments", edited)
                                .build()),
                T0.plusSeconds(1));
        assertThat(d).as("answered elsewhere: seen at the next poll").isNotDone();
        waits.poll();

        assertThat(d).isCompletedWithValue(GateDecision.allowWith(edited));
        assertThat(chunkNames()).containsExactly("interrupt.requested", "approval.decided");
        assertThat(chunks.get(1)[1]).contains("\"by\":\"answer\"").contains(i.id());
        assertThat(waits.waiting()).isZero();
    }

    @Test
    void anAnswerThroughThisServerWakesTheWaitWithoutAPoll() {
        CompletableFuture<GateDecision> d =
                gate(waits).admit(call("k1", "Bash")).toCompletableFuture();
        Interrupt i = onlyPending();

        waits.settled(
                store.answer(
                                run.ref(),
                                i.id(),
                                InterruptStatus.RESOLVED,
                                Optional.of(
                                        Json.createObjectBuilder().add("approved", false).build()),
                                T0)
                        .interrupt()
                        .orElseThrow());

        assertThat(d).isDone();
        assertThat(d.join().allowed()).isFalse();
        assertThat(d.join().reason()).isEqualTo("denied by a person");
    }

    @Test
    void aServerThatTakesTheRunOverWaitsOnTheSameInterruptAndBothGetTheAnswer() {
        CompletableFuture<GateDecision> first =
                gate(waits).admit(call("k1", "Bash")).toCompletableFuture();
        InterruptWaits successor = new InterruptWaits(store, runs, clock, BY_HAND, timer);
        List<String[]> successorChunks = new CopyOnWriteArrayList<>();
        try {
            CompletableFuture<GateDecision> again =
                    gate(successor, successorChunks)
                            .admit(call("k1", "Bash"))
                            .toCompletableFuture();
            Interrupt i = onlyPending();
            assertThat(chunkNames())
                    .as("one interrupt, requested once")
                    .containsExactly("interrupt.requested");
            // The successor announces it again, chunk for chunk the same: its writer drops it as
            // a repeat of the stored one (BridgedRepeats), or writes it when the first never was.
            assertThat(successorChunks).hasSize(1);
            assertThat(successorChunks.get(0)).containsExactly(chunks.get(0));

            store.answer(
                    run.ref(),
                    i.id(),
                    InterruptStatus.RESOLVED,
                    Optional.of(Json.createObjectBuilder().add("approved", true).build()),
                    T0);
            waits.poll();
            successor.poll();

            assertThat(first).isCompletedWithValue(GateDecision.allow());
            assertThat(again).isCompletedWithValue(GateDecision.allow());
            assertThat(now(gate(successor).admit(call("k1", "Bash"))))
                    .as("asked once more after the answer: decided at once, no new interrupt")
                    .isEqualTo(GateDecision.allow());
            assertThat(store.pending(run.ref())).isEmpty();
        } finally {
            successor.close();
        }
    }

    /** AP-12. */
    @Test
    void anInterruptWhoseOpenerDiedBeforeItsChunkIsAnnouncedByTheNextDriverOnceOnly() {
        // The opener stores the interrupt, then fails to write its chunk (as a server killed
        // between the two would).
        gate(
                        waits,
                        new CopyOnWriteArrayList<>() {
                            @Override
                            public boolean add(String[] chunk) {
                                throw new IllegalStateException("the server died");
                            }
                        })
                .admit(call("k1", "Bash"));
        Interrupt opened = onlyPending();
        InterruptWaits successor = new InterruptWaits(store, runs, clock, BY_HAND, timer);
        try {
            ApprovalGate next = gate(successor);
            next.admit(call("k1", "Bash"));
            next.admit(call("k1", "Bash"));

            assertThat(chunkNames())
                    .as("announced by the next driver, once however often it is asked")
                    .containsExactly("interrupt.requested");
            assertThat(chunks.get(0)[1]).isEqualTo(opened.toJson().toString());
            assertThat(store.pending(run.ref())).hasSize(1);
        } finally {
            successor.close();
        }
    }

    @Test
    void aCancelledInterruptIsARefusal() {
        CompletableFuture<GateDecision> d =
                gate(waits).admit(call("k1", "Bash")).toCompletableFuture();
        store.answer(
                run.ref(), onlyPending().id(), InterruptStatus.CANCELLED, Optional.empty(), T0);
        waits.poll();

        assertThat(d.join()).isEqualTo(GateDecision.deny("cancelled"));
    }

    @Test
    void aWaitPastItsExpiryIsRefusedAsExpiredEvenBeforeTheReaperMarksIt() {
        CompletableFuture<GateDecision> d =
                gate(waits).admit(call("k1", "Bash")).toCompletableFuture();
        clock.advance(TTL.minusMillis(1));
        waits.poll();
        assertThat(d).isNotDone();

        clock.advance(Duration.ofMillis(1));
        waits.poll();

        assertThat(d.join()).isEqualTo(GateDecision.deny("expired"));
        assertThat(chunks.get(1)[1]).contains("\"by\":\"expiry\"");
    }

    @Test
    void theWaitsOfARunThatEndedAreCancelled() {
        CompletableFuture<GateDecision> d =
                gate(waits).admit(call("k1", "Bash")).toCompletableFuture();
        Interrupt i = onlyPending();
        db.inTransaction(
                em ->
                        em.createQuery(
                                        "UPDATE RunRecord r SET r.status ="
                                                + " dev.agentbox.run.store.RunStatus.ABORTED WHERE r.runPk = :pk")
                                .setParameter("pk", run.ref().id())
                                .executeUpdate());

        waits.poll();

        assertThat(d.join()).isEqualTo(GateDecision.deny("cancelled"));
        assertThat(store.find(run.ref(), i.id()).orElseThrow().status())
                .isEqualTo(InterruptStatus.CANCELLED);
    }

    @Test
    void callsOverTheServersBoundOfWaitsAreRefusedNotQueued() {
        InterruptWaits two =
                new InterruptWaits(
                        store,
                        runs,
                        clock,
                        new InterruptSettings(TTL, Duration.ofHours(1), 2),
                        timer);
        try {
            ApprovalGate g = gate(two);
            assertThat(g.admit(call("k1", "Bash")).toCompletableFuture()).isNotDone();
            assertThat(g.admit(call("k2", "Bash")).toCompletableFuture()).isNotDone();
            assertThat(g.admit(call("k1", "Bash")).toCompletableFuture())
                    .as("the same call shares its wait")
                    .isNotDone();

            GateDecision third = now(g.admit(call("k3", "Bash")));
            assertThat(third.allowed()).isFalse();
            assertThat(third.reason()).contains("too many");
            assertThat(two.waiting()).isEqualTo(2);
        } finally {
            two.close();
        }
    }

    @Test
    void aCallOfAnotherRunIsRefused() {
        GateDecision d = now(gate(waits).admit(new ToolCall("someone-else", "k", "Read", ARGS)));

        assertThat(d.allowed()).isFalse();
    }

    @Test
    void theTimerPollsTheStoreSoAnAnswerFromAnotherServerArrivesWithinAnInterval()
            throws Exception {
        InterruptWaits polling =
                new InterruptWaits(
                        store,
                        runs,
                        clock,
                        new InterruptSettings(TTL, Duration.ofMillis(50), 10),
                        timer);
        try {
            CompletableFuture<GateDecision> d =
                    gate(polling).admit(call("k1", "Bash")).toCompletableFuture();
            Thread.sleep(200);
            assertThat(d).isNotDone();

            store.answer(
                    run.ref(),
                    onlyPending().id(),
                    InterruptStatus.RESOLVED,
                    Optional.of(Json.createObjectBuilder().add("approved", true).build()),
                    T0);

            assertThat(d.get(5, TimeUnit.SECONDS)).isEqualTo(GateDecision.allow());
        } finally {
            polling.close();
        }
    }

    @Test
    void aVeryLongCallKeyIsStoredAsAStableDigest() {
        String key = "k".repeat(1000);
        gate(waits).admit(call(key, "Bash"));
        gate(waits).admit(call(key, "Bash"));

        assertThat(onlyPending().callKey()).startsWith("sha256:");
    }
}
