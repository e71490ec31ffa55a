package dev.agentbox.run.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.PageCursor;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.JournalId;
import dev.agentbox.sandbox.spi.JournalNames;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link RunStore} must have (DF-01..DF-03, DF-05, DF-06); run in memory, on
 * Derby and on PostgreSQL.
 */
public abstract class RunStoreContract extends RunStoresFixture {

    private static final JsonObject USAGE =
            Json.createObjectBuilder()
                    .add("inputTokens", 1200)
                    .add("outputTokens", 345)
                    .add("costUsd", 0.0123)
                    .build();

    @Test
    void aCreatedRunIsFoundWithEveryField() {
        NewRun created =
                new NewRun(
                        tenant,
                        "r-123",
                        "t-1",
                        Harness.CLAUDE_CODE,
                        T0,
                        true,
                        false,
                        true,
                        Optional.of("my-agent --json"),
                        Optional.of("fix the failing test"),
                        Optional.of("sbx-1"));
        RunRecordView returned = create(created);

        RunRecordView found = runs.find(tenant, "r-123").orElseThrow();
        assertThat(found).isEqualTo(returned);
        assertThat(runs.findById(returned.ref())).contains(found);
        assertThat(found.tenant()).isEqualTo(tenant);
        assertThat(found.runId()).isEqualTo("r-123");
        assertThat(found.threadId()).isEqualTo("t-1");
        assertThat(found.harness()).isEqualTo(Harness.CLAUDE_CODE);
        assertThat(found.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(found.startedAt()).isEqualTo(T0);
        assertThat(found.durable()).isTrue();
        assertThat(found.detachOnDisconnect()).isFalse();
        assertThat(found.destroyOnComplete()).isTrue();
        assertThat(found.command()).contains("my-agent --json");
        assertThat(found.prompt()).contains("fix the failing test");
        assertThat(found.sandboxKey()).contains("sbx-1");
    }

    @Test
    void aNewRunHasNoOptionalFieldAndNoEpoch() {
        RunRecordView run = create("r-new");
        for (RunRecordView view : List.of(run, runs.findById(run.ref()).orElseThrow())) {
            assertThat(view.sandboxKey()).isEmpty();
            assertThat(view.detachedSince()).isEmpty();
            assertThat(view.cancelRequested()).as("absent, not false").isEmpty();
            assertThat(view.driverEpoch()).as("absent, not 0").isEmpty();
            assertThat(view.finishedAt()).isEmpty();
            assertThat(view.error()).isEmpty();
            assertThat(view.usage()).isEmpty();
            assertThat(view.command()).isEmpty();
            assertThat(view.prompt()).isEmpty();
        }
    }

    @Test
    void creatingAnExistingRunIdIsALostRaceThatLeavesTheRunUntouched() {
        RunRecordView first = create("r-dup");
        NewRun again =
                new NewRun(
                        tenant,
                        "r-dup",
                        "other-thread",
                        Harness.CODEX,
                        T0.plusSeconds(5),
                        false,
                        false,
                        true,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty());
        assertThat(runs.create(again)).isEmpty();
        assertThat(RunCreation.create(runs, again)).isEmpty();
        assertThat(runs.find(tenant, "r-dup")).contains(first);
    }

    @Test
    void theSameRunIdInAnotherTenantIsAnotherRun() {
        RunRecordView mine = create("r-shared");
        RunRecordView theirs =
                runs.create(
                                NewRun.durable(
                                        otherTenant, "r-shared", "thread-1", Harness.COMMAND, T0))
                        .orElseThrow();
        assertThat(theirs.ref()).isNotEqualTo(mine.ref());
        assertThat(runs.find(tenant, "r-shared").orElseThrow().ref()).isEqualTo(mine.ref());
        assertThat(runs.find(otherTenant, "r-shared").orElseThrow().ref()).isEqualTo(theirs.ref());
        assertThat(runs.find(tenant, "r-unknown")).isEmpty();
        assertThat(runs.findById(new RunRef("no-such-run"))).isEmpty();
    }

    @Test
    void aRunsToolBridgeIsKeptWithTheRunAndAbsentByDefault() {
        jakarta.json.JsonObject bridge =
                Json.createObjectBuilder()
                        .add("tokenSha256", "ab".repeat(32))
                        .add(
                                "tools",
                                Json.createArrayBuilder()
                                        .add(Json.createObjectBuilder().add("name", "weather")))
                        .build();
        create(
                new NewRun(
                        tenant,
                        "r-bridge",
                        "t-1",
                        Harness.CLAUDE_CODE,
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
                        Json.createArrayBuilder().build(),
                        Optional.of(bridge)));
        create(NewRun.durable(tenant, "r-no-bridge", "t-1", Harness.COMMAND, T0));
        assertThat(runs.find(tenant, "r-bridge").orElseThrow().bridge()).contains(bridge);
        assertThat(runs.find(tenant, "r-no-bridge").orElseThrow().bridge()).isEmpty();
    }

    @Test
    void approvalRulesAreKeptWithTheRunAndEmptyByDefault() {
        jakarta.json.JsonArray rules =
                Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("tool", "Bash").add("decision", "ask"))
                        .build();
        create(
                new NewRun(
                        tenant,
                        "r-rules",
                        "t-1",
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
                        rules,
                        Optional.empty()));
        create(NewRun.durable(tenant, "r-no-rules", "t-1", Harness.COMMAND, T0));
        assertThat(runs.find(tenant, "r-rules").orElseThrow().approvals()).isEqualTo(rules);
        assertThat(runs.find(tenant, "r-no-rules").orElseThrow().approvals()).isEmpty();
    }

    @Test
    void fileEventsAreKeptWithTheRunAndOffByDefault() {
        create(
                new NewRun(
                        tenant,
                        "r-files",
                        "t-1",
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
                        true,
                        JsonValue.EMPTY_JSON_ARRAY,
                        Optional.empty()));
        create(NewRun.durable(tenant, "r-no-files", "t-1", Harness.COMMAND, T0));
        assertThat(runs.find(tenant, "r-files").orElseThrow().fileEvents()).isTrue();
        assertThat(runs.find(tenant, "r-no-files").orElseThrow().fileEvents()).isFalse();
    }

    @Test
    void theJournalNonceIsKeptAsCreatedAndTheSameRunIdInAnotherTenantGetsAnotherOne() {
        String nonce = NewRun.randomNonce();
        RunRecordView mine =
                create(
                        new NewRun(
                                tenant,
                                "r-nonce",
                                "t-1",
                                Harness.COMMAND,
                                T0,
                                true,
                                true,
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                nonce,
                                Optional.empty(),
                                false,
                                JsonValue.EMPTY_JSON_ARRAY,
                                Optional.empty()));
        RunRecordView theirs =
                runs.create(NewRun.durable(otherTenant, "r-nonce", "t-1", Harness.COMMAND, T0))
                        .orElseThrow();

        RunRecordView found = runs.find(tenant, "r-nonce").orElseThrow();
        assertThat(found.journalNonce()).isEqualTo(nonce);
        assertThat(found.journal())
                .isEqualTo(new JournalId("r-nonce", nonce))
                .isEqualTo(mine.journal());
        assertThat(runs.find(otherTenant, "r-nonce").orElseThrow().journal())
                .isEqualTo(theirs.journal());
        assertThat(theirs.journalNonce())
                .isNotEqualTo(nonce)
                .isNotEqualTo(JournalNames.nonce("r-nonce"));
    }

    @Test
    void ofConcurrentCreatesOfOneRunIdExactlyOneWinsAndTheOthersLoseQuietly() throws Exception {
        int contenders = 6;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Optional<RunRecordView>>> results = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                results.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    return RunCreation.create(runs, newRun("r-race"));
                                }));
            }
            start.countDown();
            List<RunRecordView> winners = new ArrayList<>();
            for (Future<Optional<RunRecordView>> r : results) {
                r.get().ifPresent(winners::add);
            }
            assertThat(winners).hasSize(1);
            assertThat(runs.find(tenant, "r-race").orElseThrow().ref())
                    .isEqualTo(winners.get(0).ref());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRunIdOfTheMaximumLengthRoundTripsAndALongerOneIsRejected() {
        String longest = "r".repeat(NewRun.MAX_RUN_ID - 6) + "a;b c$";
        assertThat(create(longest).runId()).isEqualTo(longest);
        assertThat(runs.find(tenant, longest)).isPresent();
        assertThatThrownBy(() -> newRun(longest + "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> newRun("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachRecordFieldRoundTripsAndOverwrites() {
        RunRef run = create("r-fields").ref();

        assertThat(runs.setSandboxKey(run, Optional.of("sbx-a"))).isTrue();
        assertThat(runs.setDetachedSince(run, Optional.of(T0.plusMillis(1500)))).isTrue();
        assertThat(runs.setCancelRequested(run, Optional.of(false))).isTrue();
        assertThat(runs.setUsage(run, Optional.of(USAGE))).isTrue();
        RunRecordView set = runs.findById(run).orElseThrow();
        assertThat(set.sandboxKey()).contains("sbx-a");
        assertThat(set.detachedSince()).contains(T0.plusMillis(1500));
        assertThat(set.cancelRequested()).contains(false);
        assertThat(set.usage()).contains(USAGE);

        JsonObject otherUsage = Json.createObjectBuilder().add("inputTokens", 1).build();
        runs.setSandboxKey(run, Optional.of("sbx-b"));
        runs.setDetachedSince(run, Optional.of(T0.plusSeconds(60)));
        runs.setCancelRequested(run, Optional.of(true));
        runs.setUsage(run, Optional.of(otherUsage));
        RunRecordView overwritten = runs.findById(run).orElseThrow();
        assertThat(overwritten.sandboxKey()).contains("sbx-b");
        assertThat(overwritten.detachedSince()).contains(T0.plusSeconds(60));
        assertThat(overwritten.cancelRequested()).contains(true);
        assertThat(overwritten.usage()).contains(otherUsage);
        assertThat(overwritten.status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void clearingOneFieldClearsOnlyItAndFalseIsNotAbsent() {
        RunRef run = create("r-clear").ref();
        runs.setSandboxKey(run, Optional.of("sbx-a"));
        runs.setDetachedSince(run, Optional.of(T0));
        runs.setCancelRequested(run, Optional.of(false));
        runs.setUsage(run, Optional.of(USAGE));

        runs.setDetachedSince(run, Optional.empty());
        RunRecordView afterDetachCleared = runs.findById(run).orElseThrow();
        assertThat(afterDetachCleared.detachedSince()).isEmpty();
        assertThat(afterDetachCleared.sandboxKey()).contains("sbx-a");
        assertThat(afterDetachCleared.cancelRequested()).as("false stays false").contains(false);
        assertThat(afterDetachCleared.usage()).contains(USAGE);

        runs.setCancelRequested(run, Optional.empty());
        RunRecordView afterCancelCleared = runs.findById(run).orElseThrow();
        assertThat(afterCancelCleared.cancelRequested()).as("absent now, not false").isEmpty();
        assertThat(afterCancelCleared.sandboxKey()).contains("sbx-a");
        assertThat(afterCancelCleared.usage()).contains(USAGE);

        runs.setSandboxKey(run, Optional.empty());
        runs.setUsage(run, Optional.empty());
        RunRecordView bare = runs.findById(run).orElseThrow();
        assertThat(bare.sandboxKey()).isEmpty();
        assertThat(bare.usage()).isEmpty();
        assertThat(bare.runId()).isEqualTo("r-clear");
        assertThat(bare.status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void everyRecordWriteBumpsTheRecordVersionButNeverTheEpoch() {
        RunRef run = create("r-version").ref();
        long epoch = claims.claim(run, "node-a").orElseThrow();
        long v0 = runs.findById(run).orElseThrow().version();
        runs.setSandboxKey(run, Optional.of("sbx"));
        runs.setDetachedSince(run, Optional.of(T0));
        runs.setCancelRequested(run, Optional.of(true));
        runs.setUsage(run, Optional.of(USAGE));
        RunRecordView after = runs.findById(run).orElseThrow();
        assertThat(after.version()).isEqualTo(v0 + 4);
        assertThat(after.driverEpoch()).hasValue(epoch);
        assertThat(claims.epoch(run)).hasValue(epoch);
    }

    @Test
    void fieldWritesOfAnUnknownRunReturnFalse() {
        RunRef unknown = new RunRef("no-such-run");
        assertThat(runs.setSandboxKey(unknown, Optional.of("x"))).isFalse();
        assertThat(runs.setDetachedSince(unknown, Optional.of(T0))).isFalse();
        assertThat(runs.setCancelRequested(unknown, Optional.of(true))).isFalse();
        assertThat(runs.setUsage(unknown, Optional.empty())).isFalse();
    }

    @Test
    void statusFinishedAtAndErrorRoundTripThroughTheFencedFinish() {
        RunRef failed = claimedRun();
        assertThat(
                        log.finishRun(
                                failed,
                                1,
                                RunStatus.FAILED,
                                T0.plusSeconds(9),
                                Optional.of(RunError.of("exit 7: boom", "agent-exit"))))
                .isEqualTo(FinishResult.FINISHED);
        RunRecordView f = runs.findById(failed).orElseThrow();
        assertThat(f.status()).isEqualTo(RunStatus.FAILED);
        assertThat(f.finishedAt()).contains(T0.plusSeconds(9));
        assertThat(f.error()).contains(RunError.of("exit 7: boom", "agent-exit"));

        RunRef noCode = claimedRun();
        log.finishRun(
                noCode,
                1,
                RunStatus.ABORTED,
                T0.plusSeconds(3),
                Optional.of(RunError.of("cancelled")));
        assertThat(runs.findById(noCode).orElseThrow().error()).contains(RunError.of("cancelled"));

        RunRef completed = claimedRun();
        log.finishRun(completed, 1, RunStatus.COMPLETED, T0.plusSeconds(4), Optional.empty());
        RunRecordView c = runs.findById(completed).orElseThrow();
        assertThat(c.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(c.error()).isEmpty();
    }

    @Test
    void aLongErrorMessageIsCutToTheColumnAndStillStored() {
        RunRef run = claimedRun();
        log.finishRun(
                run,
                1,
                RunStatus.FAILED,
                T0,
                Optional.of(RunError.of("x".repeat(RunError.MAX_MESSAGE + 50))));
        assertThat(runs.findById(run).orElseThrow().error().orElseThrow().message())
                .hasSize(RunError.MAX_MESSAGE);
    }

    @Test
    void findActiveRunIsTheNewestNonTerminalRunOfTheThread() {
        create(NewRun.durable(tenant, "r-old", "t-active", Harness.COMMAND, T0));
        RunRecordView middle =
                create(
                        NewRun.durable(
                                tenant,
                                "r-middle",
                                "t-active",
                                Harness.COMMAND,
                                T0.plusSeconds(1)));
        RunRef newest =
                create(
                                NewRun.durable(
                                        tenant,
                                        "r-newest",
                                        "t-active",
                                        Harness.COMMAND,
                                        T0.plusSeconds(2)))
                        .ref();
        create(
                NewRun.durable(
                        tenant, "r-other-thread", "t-other", Harness.COMMAND, T0.plusSeconds(3)));
        runs.create(
                NewRun.durable(
                        otherTenant,
                        "r-other-tenant",
                        "t-active",
                        Harness.COMMAND,
                        T0.plusSeconds(4)));

        assertThat(runs.findActiveRun(tenant, "t-active").orElseThrow().ref()).isEqualTo(newest);

        claims.claim(newest, "node-a");
        log.finishRun(newest, 1, RunStatus.COMPLETED, T0.plusSeconds(10), Optional.empty());
        assertThat(runs.findActiveRun(tenant, "t-active").orElseThrow().ref())
                .isEqualTo(middle.ref());
        assertThat(runs.findActiveRun(tenant, "t-none")).isEmpty();
    }

    @Test
    void findActiveRunIsEmptyWhenEveryRunOfTheThreadIsTerminal() {
        RunRef run = claimedRun();
        log.finishRun(run, 1, RunStatus.ABORTED, T0, Optional.empty());
        assertThat(runs.findActiveRun(tenant, "thread-1")).isEmpty();
    }

    @Test
    void listReclaimableIncludesTheTtlBoundaryAndNotOneMillisecondYounger() {
        Duration ttl = Duration.ofMinutes(30);
        Instant now = T0.plus(Duration.ofHours(2));
        RunRef exactly = create("r-exactly").ref();
        RunRef younger = create("r-younger").ref();
        runs.setDetachedSince(exactly, Optional.of(now.minus(ttl)));
        runs.setDetachedSince(younger, Optional.of(now.minus(ttl).plusMillis(1)));

        assertThat(mine(runs.listReclaimable(now, ttl, 1000))).containsExactly(exactly);
        assertThat(mine(runs.listReclaimable(now.plusMillis(1), ttl, 1000)))
                .containsExactly(exactly, younger);
    }

    @Test
    void listReclaimableSkipsAttachedAndTerminalRunsAndListsTheLongestDetachedFirst() {
        Duration ttl = Duration.ofMinutes(1);
        Instant now = T0.plus(Duration.ofHours(1));
        RunRef second = create("r-second").ref();
        RunRef first = create("r-first").ref();
        RunRef attached = create("r-attached").ref();
        RunRef finished = claimedRun();
        runs.setDetachedSince(second, Optional.of(T0.plusSeconds(2)));
        runs.setDetachedSince(first, Optional.of(T0.plusSeconds(1)));
        runs.setDetachedSince(finished, Optional.of(T0));
        log.finishRun(finished, 1, RunStatus.COMPLETED, T0.plusSeconds(5), Optional.empty());

        assertThat(mine(runs.listReclaimable(now, ttl, 1000)))
                .containsExactly(first, second)
                .doesNotContain(attached);
    }

    @Test
    void listReclaimableReturnsAtMostTheLimit() {
        Instant base = T0.minus(Duration.ofDays(3650)); // older than any other test's detachment
        RunRef a = create("r-a").ref();
        RunRef b = create("r-b").ref();
        RunRef c = create("r-c").ref();
        runs.setDetachedSince(c, Optional.of(base.plusSeconds(3)));
        runs.setDetachedSince(a, Optional.of(base.plusSeconds(1)));
        runs.setDetachedSince(b, Optional.of(base.plusSeconds(2)));

        List<RunRecordView> two = runs.listReclaimable(base.plusSeconds(4), Duration.ZERO, 2);
        assertThat(two).hasSize(2);
        assertThat(mine(two)).containsExactly(a, b);
    }

    @Test
    void listReclaimableContinuesAfterACursorInTheSameOrder() {
        Instant base =
                T0.minus(Duration.ofDays(3650))
                        .minusSeconds(100); // older than any other test's detachment
        RunRef a = create("r-ca").ref();
        RunRef b = create("r-cb").ref();
        RunRef c = create("r-cc").ref();
        runs.setDetachedSince(a, Optional.of(base.plusSeconds(1)));
        runs.setDetachedSince(b, Optional.of(base.plusSeconds(2)));
        runs.setDetachedSince(c, Optional.of(base.plusSeconds(2)));
        Instant now = base.plusSeconds(10);

        List<RunRecordView> first = runs.listReclaimable(now, Duration.ZERO, Optional.empty(), 2);
        assertThat(mine(first)).hasSize(2).startsWith(a);
        List<RunRecordView> rest =
                runs.listReclaimable(
                        now,
                        Duration.ZERO,
                        Optional.of(RunStore.ReclaimCursor.of(first.get(1))),
                        1000);
        List<RunRef> all = new ArrayList<>(mine(first));
        all.addAll(mine(rest));
        assertThat(all).containsExactlyInAnyOrder(a, b, c).doesNotHaveDuplicates();
        assertThat(
                        mine(
                                runs.listReclaimable(
                                        now,
                                        Duration.ZERO,
                                        Optional.of(
                                                RunStore.ReclaimCursor.of(
                                                        rest.get(rest.size() - 1))),
                                        1000)))
                .isEmpty();
    }

    @Test
    void liveRunsUsingASandboxAreTheTenantsNonTerminalRunsBoundToItsKey() {
        RunRef live = create("r-live").ref();
        RunRef other = create("r-other-key").ref();
        RunRef done = claimedRun();
        RunRef theirs =
                runs.create(NewRun.durable(otherTenant, "r-theirs", "t", Harness.COMMAND, T0))
                        .orElseThrow()
                        .ref();
        runs.setSandboxKey(live, Optional.of("key-1"));
        runs.setSandboxKey(other, Optional.of("key-2"));
        runs.setSandboxKey(done, Optional.of("key-1"));
        runs.setSandboxKey(theirs, Optional.of("key-1"));
        log.finishRun(done, 1, RunStatus.COMPLETED, T0.plusSeconds(5), Optional.empty());

        assertThat(refs(runs.liveRunsUsing(tenant, "key-1", 10))).containsExactly(live);
        assertThat(runs.liveRunsUsing(tenant, "key-3", 10)).isEmpty();
    }

    @Test
    void listIsNewestFirstAndFiltersByThreadAndStatus() {
        RunRef r1 = create(NewRun.durable(tenant, "r-1", "t-a", Harness.COMMAND, T0)).ref();
        RunRef r2 =
                create(NewRun.durable(tenant, "r-2", "t-b", Harness.COMMAND, T0.plusSeconds(1)))
                        .ref();
        RunRef r3 =
                create(NewRun.durable(tenant, "r-3", "t-a", Harness.COMMAND, T0.plusSeconds(2)))
                        .ref();
        runs.create(NewRun.durable(otherTenant, "r-4", "t-a", Harness.COMMAND, T0.plusSeconds(3)));
        claims.claim(r3, "node-a");
        log.finishRun(r3, 1, RunStatus.FAILED, T0.plusSeconds(5), Optional.of(RunError.of("x")));

        assertThat(refs(runs.list(tenant, Optional.empty(), Optional.empty(), 100)))
                .containsExactly(r3, r2, r1);
        assertThat(refs(runs.list(tenant, Optional.of("t-a"), Optional.empty(), 100)))
                .containsExactly(r3, r1);
        assertThat(refs(runs.list(tenant, Optional.of("t-a"), Optional.of(RunStatus.RUNNING), 100)))
                .containsExactly(r1);
        assertThat(refs(runs.list(tenant, Optional.empty(), Optional.of(RunStatus.FAILED), 100)))
                .containsExactly(r3);
        assertThat(refs(runs.list(tenant, Optional.empty(), Optional.empty(), 2)))
                .containsExactly(r3, r2);
    }

    /** RN-05: runs started in the same instant are split across pages by runId, none lost. */
    @Test
    void aPageAfterACursorHoldsTheOlderRunsAndTiesBreakByRunId() {
        RunRef r1 = create(NewRun.durable(tenant, "r-1", "t-a", Harness.COMMAND, T0)).ref();
        RunRef r2 =
                create(NewRun.durable(tenant, "r-2", "t-a", Harness.COMMAND, T0.plusSeconds(1)))
                        .ref();
        RunRef r3 =
                create(NewRun.durable(tenant, "r-3", "t-a", Harness.COMMAND, T0.plusSeconds(1)))
                        .ref();
        RunRef r4 =
                create(NewRun.durable(tenant, "r-4", "t-b", Harness.COMMAND, T0.plusSeconds(2)))
                        .ref();
        runs.create(NewRun.durable(otherTenant, "r-0", "t-a", Harness.COMMAND, T0.minusSeconds(1)));

        List<RunRecordView> first = runs.list(tenant, Optional.empty(), Optional.empty(), 2);
        assertThat(refs(first)).containsExactly(r4, r3);
        RunRecordView last = first.get(1);
        PageCursor cursor = new PageCursor(last.startedAt(), last.runId());
        // r-2 started with r-3: the tie goes by runId, so it is on the next page, not lost.
        assertThat(
                        refs(
                                runs.list(
                                        tenant,
                                        Optional.empty(),
                                        Optional.empty(),
                                        Optional.of(cursor),
                                        2)))
                .containsExactly(r2, r1);
        assertThat(
                        refs(
                                runs.list(
                                        tenant,
                                        Optional.of("t-a"),
                                        Optional.empty(),
                                        Optional.of(cursor),
                                        10)))
                .containsExactly(r2, r1);
        PageCursor end = new PageCursor(T0, "r-1");
        assertThat(runs.list(tenant, Optional.empty(), Optional.empty(), Optional.of(end), 10))
                .isEmpty();
    }

    @Test
    void aUsageObjectTooLargeForItsColumnIsRejected() {
        RunRef run = create("r-usage").ref();
        JsonObject huge =
                Json.createObjectBuilder().add("blob", "x".repeat(RunRecord.MAX_TEXT)).build();
        assertThatThrownBy(() -> runs.setUsage(run, Optional.of(huge)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(runs.findById(run).orElseThrow().usage()).isEmpty();
    }

    @Test
    void aLimitBelowOneIsRejectedRatherThanReadAsNoLimit() {
        create("r-limit");
        assertThatThrownBy(() -> runs.list(tenant, Optional.empty(), Optional.empty(), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> runs.listReclaimable(T0, Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private List<RunRef> mine(List<RunRecordView> views) {
        return views.stream()
                .filter(v -> v.tenant().equals(tenant))
                .map(RunRecordView::ref)
                .toList();
    }

    private static List<RunRef> refs(List<RunRecordView> views) {
        return views.stream().map(RunRecordView::ref).toList();
    }
}
