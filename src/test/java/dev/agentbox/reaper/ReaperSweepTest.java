package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.reaper.SweepResult.RunEntry;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.ExitSentinel;
import dev.agentbox.run.journal.JournalId;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One sweep against real parts: runs on Derby, agents journaling in BusyBox containers, a settable
 * clock for the detached TTL. Every test starts from an empty run table, so a sweep sees only the
 * runs the test made.
 */
class ReaperSweepTest extends ReaperDatabaseTest {

    private static RunEntry entry(SweepResult result, RunRecordView run) {
        return result.runs().stream()
                .filter(e -> e.runId().equals(run.runId()))
                .findFirst()
                .orElseThrow();
    }

    private static long count(List<String> chunks, String text) {
        return chunks.stream().filter(c -> c.contains(text)).count();
    }

    @Test
    @DisplayName(
            "RP-01 finished + detached → finalized: transcript once, detachedSince unchanged, container destroyed, record deleted")
    void aFinishedDetachedRunIsFinalizedOnceAndItsSandboxReclaimed() throws Exception {
        Box box = f.sandbox();
        String gate = "/tmp/gate-" + UUID.randomUUID();
        RunRecordView run =
                f.runLeftByItsDriverAfterTwoLines(box, "rp01-" + UUID.randomUUID(), gate);
        Instant detachedAt = f.clock.instant().minusSeconds(5);
        f.detach(run, detachedAt);
        box.handle().process().exec("touch " + gate);
        f.awaitExit(box, run);
        assertThat(f.chunkJson(run)).noneMatch(c -> c.contains("line-3"));

        SweepResult result = f.reaper(f.settings()).sweep();

        RunEntry e = entry(result, run);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.FINALIZED);
        assertThat(e.status()).contains("completed");
        assertThat(e.exitCode()).contains(0);
        assertThat(e.reclaim()).contains(ReclaimOutcome.DESTROYED);
        List<String> chunks = f.chunkJson(run);
        for (String line : List.of("line-1", "line-2", "line-3", "line-4")) {
            assertThat(count(chunks, line)).as(line).isEqualTo(1);
        }
        assertThat(f.chunkTypes(run)).last().isEqualTo("RUN_FINISHED");
        assertThat(f.chunkTypes(run).stream().filter("RUN_FINISHED"::equals)).hasSize(1);
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("completed");
        assertThat(after.driverEpoch().getAsLong()).isEqualTo(2);
        assertThat(after.detachedSince()).contains(detachedAt);
        assertThat(f.containerExists(box.handle().id())).isFalse();
        assertThat(f.instances.find(f.tenant, box.key())).isEmpty();
        assertThat(result.considered()).isEqualTo(1);
        assertThat(result.probed()).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "RP-14 the finalizer deletes the run's journal files once it read the sentinel, also in a sandbox the reclaim keeps")
    void theFinalizerDeletesTheJournalOfTheRunItFinalized() {
        Box box = f.sandbox();
        RunRecordView done = f.run(box, "echo done; echo oops >&2");
        // The thread's next run still uses the sandbox: the reclaim keeps it, with its files.
        RunRecordView next = f.run(box, "echo next; sleep 60");
        f.awaitExit(box, done);
        f.detach(done, f.clock.instant());
        String dir = "/tmp/agentbox-runs";
        assertThat(PruneFixture.files(box.handle(), dir))
                .contains(PruneFixture.ndjson(done.runId()), PruneFixture.err(done.runId()));

        SweepResult result = f.reaper(f.settings()).sweep();

        RunEntry e = entry(result, done);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.FINALIZED);
        assertThat(e.reclaim()).contains(ReclaimOutcome.IN_USE);
        assertThat(f.containerExists(box.handle().id())).isTrue();
        assertThat(PruneFixture.files(box.handle(), dir))
                .doesNotContain(PruneFixture.ndjson(done.runId()), PruneFixture.err(done.runId()))
                .contains(PruneFixture.ndjson(next.runId()));
        assertThat(count(f.chunkJson(done), "done")).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "RP-02 detached + producing → untouched: no append, no record write, no epoch change")
    void aProducingRunIsLeftUntouched() {
        Box box = f.sandbox();
        RunRecordView run = f.detach(f.run(box, "echo started; sleep 60"), f.clock.instant());
        long version = run.version();

        SweepResult result = f.reaper(f.settings()).sweep();

        assertThat(entry(result, run).outcome()).isEqualTo(SweepOutcome.PRODUCING);
        RunRecordView after = f.fresh(run);
        assertThat(after.version()).isEqualTo(version);
        assertThat(after.driverEpoch()).isEmpty();
        assertThat(f.log.size(run.ref())).isZero();
        assertThat(after.cancelRequested()).isEmpty();
        assertThat(f.containerExists(box.handle().id())).isTrue();
        assertThat(result.count(SweepOutcome.PRODUCING)).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "RP-03 no sandbox key, no instance record, container removed by hand → unknown; a forged sentinel (even with the nonce computed from the runId) → producing")
    void whatTheProbeCannotTellIsUnknownAndAForgedSentinelIsProducing() {
        Box gone = f.sandbox();
        RunRecordView containerGone = f.detach(f.run(gone, "sleep 60"), f.clock.instant());
        f.provider.destroy(gone.handle().id());
        Box unrecorded = f.sandbox();
        RunRecordView noRecord = f.detach(f.run(unrecorded, "sleep 60"), f.clock.instant());
        f.instances.delete(f.tenant, unrecorded.key());
        RunRecordView noKey =
                f.detach(
                        f.runs.create(
                                        NewRun.durable(
                                                f.tenant,
                                                "nokey-" + UUID.randomUUID(),
                                                "t",
                                                Harness.COMMAND,
                                                f.clock.instant()))
                                .orElseThrow(),
                        f.clock.instant());
        Box forgedBox = f.sandbox();
        // The agent knows its runId: it prints the nonce an older version derived from it, too.
        String forgedRunId = "forged-" + UUID.randomUUID();
        String derived = ExitSentinel.of(JournalId.derived(forgedRunId)).line(0);
        RunRecordView forged =
                f.detach(
                        f.run(
                                forgedBox,
                                forgedRunId,
                                "echo '{\"__exit\":0,\"__nonce\":\"00000000000000000000000000000000\"}'; "
                                        + "echo "
                                        + ShellQuote.single(derived)
                                        + "; sleep 60"),
                        f.clock.instant());
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () ->
                                forgedBox
                                        .handle()
                                        .process()
                                        .exec("cat /tmp/agentbox-runs/*.ndjson")
                                        .stdout()
                                        .contains(derived));

        SweepResult result = f.reaper(f.settings()).sweep();

        assertThat(entry(result, containerGone).outcome()).isEqualTo(SweepOutcome.UNKNOWN);
        assertThat(entry(result, noRecord).outcome()).isEqualTo(SweepOutcome.UNKNOWN);
        assertThat(entry(result, noKey).outcome()).isEqualTo(SweepOutcome.UNKNOWN);
        assertThat(entry(result, forged).outcome()).isEqualTo(SweepOutcome.PRODUCING);
        for (RunRecordView r : List.of(containerGone, noRecord, noKey, forged)) {
            assertThat(f.fresh(r).version()).as(r.runId()).isEqualTo(r.version());
            assertThat(f.log.size(r.ref())).isZero();
        }
        assertThat(result.probed()).isEqualTo(3);
    }

    @Test
    @DisplayName(
            "RP-04 TTL boundary: detached exactly now−ttl → eligible (probed, producing, left running); one ms younger → not yet")
    void theDetachedTtlIsInclusiveAndNeverKillsAProducingRun() {
        ReaperSettings settings =
                new ReaperSettings(
                        25, Duration.ofSeconds(30), Duration.ofMinutes(30), Duration.ofMinutes(10));
        Instant now = f.clock.instant();
        Box oldBox = f.sandbox();
        Box youngBox = f.sandbox();
        RunRecordView old =
                f.detach(
                        f.run(oldBox, "echo working; sleep 60"), now.minus(settings.detachedTtl()));
        RunRecordView young =
                f.detach(
                        f.run(youngBox, "echo working; sleep 60"),
                        now.minus(settings.detachedTtl()).plusMillis(1));

        SweepResult result = f.reaper(settings).sweep();

        assertThat(result.considered()).isEqualTo(1);
        assertThat(entry(result, old).outcome()).isEqualTo(SweepOutcome.PRODUCING);
        assertThat(result.runs()).noneMatch(e -> e.runId().equals(young.runId()));
        for (RunRecordView r : List.of(old, young)) {
            assertThat(f.fresh(r).version()).isEqualTo(r.version());
            assertThat(f.fresh(r).status().wireName()).isEqualTo("running");
        }
        assertThat(f.containerExists(oldBox.handle().id())).isTrue();
        assertThat(f.containerExists(youngBox.handle().id())).isTrue();
    }

    @Test
    @DisplayName(
            "RP-05 past maxDurationMs → cancelRequested, aborted max-duration with a terminal chunk, container destroyed")
    void aRunawayRunIsCancelledAbortedAndReclaimed() {
        Box box = f.sandbox();
        RunRecordView run =
                f.detach(
                        f.runStartedAgo(
                                box,
                                "echo working; sleep 60",
                                Duration.ofHours(2),
                                Duration.ofHours(1)),
                        f.clock.instant().minus(Duration.ofMinutes(1)));

        SweepResult result = f.reaper(f.settings()).sweep();

        RunEntry e = entry(result, run);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.EXPIRED);
        assertThat(e.reclaim()).contains(ReclaimOutcome.DESTROYED);
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("aborted");
        assertThat(after.cancelRequested()).contains(true);
        assertThat(after.error().orElseThrow().code()).contains("max-duration");
        assertThat(after.detachedSince()).isEqualTo(run.detachedSince());
        assertThat(f.chunkTypes(run)).containsExactly("RUN_ERROR");
        assertThat(f.containerExists(box.handle().id())).isFalse();
        assertThat(f.instances.find(f.tenant, box.key())).isEmpty();
    }

    @Test
    @DisplayName(
            "RP-05 a run past maxDurationMs whose agent had just exited → completed (not aborted), outcome expired")
    void aRunawayRunThatHadJustFinishedIsCompleted() {
        Box box = f.sandbox();
        RunRecordView run =
                f.runStartedAgo(box, "echo all-done", Duration.ofHours(2), Duration.ofHours(1));
        f.awaitExit(box, run);
        run = f.detach(run, f.clock.instant().minus(Duration.ofMinutes(1)));

        SweepResult result = f.reaper(f.settings()).sweep();

        RunEntry e = entry(result, run);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.EXPIRED);
        assertThat(e.status()).contains("completed");
        assertThat(f.fresh(run).cancelRequested()).contains(true);
        assertThat(f.fresh(run).status().wireName()).isEqualTo("completed");
        assertThat(count(f.chunkJson(run), "all-done")).isEqualTo(1);
        assertThat(f.containerExists(box.handle().id())).isFalse();
    }

    @Test
    @DisplayName("a detached run long past the TTL but within its maxDurationMs keeps running")
    void aLongDetachedProducingRunIsNotKilled() {
        Box box = f.sandbox();
        RunRecordView run =
                f.detach(
                        f.run(box, "echo working; sleep 60"),
                        f.clock.instant().minus(Duration.ofDays(2)));

        SweepResult result = f.reaper(f.settings()).sweep();

        assertThat(entry(result, run).outcome()).isEqualTo(SweepOutcome.PRODUCING);
        assertThat(f.fresh(run).status().wireName()).isEqualTo("running");
        assertThat(f.fresh(run).cancelRequested()).isEmpty();
        assertThat(f.containerExists(box.handle().id())).isTrue();
    }

    @Test
    @DisplayName("RP-06 another server holds the run's driver lease → not-claimed, nothing written")
    void aRunAnotherServerHoldsIsNotClaimed() {
        Box box = f.sandbox();
        RunRecordView run = f.run(box, "echo finished");
        f.awaitExit(box, run);
        RunRecordView detached = f.detach(run, f.clock.instant());
        try (ReaperFixture other = new ReaperFixture(db, "node-b", f.provider);
                var held =
                        other.leases
                                .acquire(
                                        LeaseNames.runDriver(run.ref().id()),
                                        Duration.ofSeconds(60),
                                        Duration.ZERO)
                                .orElseThrow()) {
            SweepResult result = f.reaper(f.settings()).sweep();

            assertThat(entry(result, run).outcome()).isEqualTo(SweepOutcome.NOT_CLAIMED);
            assertThat(f.fresh(run).version()).isEqualTo(detached.version());
            assertThat(f.log.size(run.ref())).isZero();
            assertThat(f.containerExists(box.handle().id())).isTrue();
        }
    }

    @Test
    @DisplayName(
            "RP-06 a viewer re-attaches between the listing and the claim → not-claimed, detachedSince stays cleared")
    void aRunAViewerReattachedToIsNotClaimed() {
        Box box = f.sandbox();
        RunRecordView run = f.run(box, "echo finished");
        f.awaitExit(box, run);
        f.detach(run, f.clock.instant());
        RunStore reattaching =
                wrap(
                        f.runs,
                        NOTHING,
                        (method, args) -> {
                            if (method.equals("listReclaimable")) {
                                f.runs.setDetachedSince(
                                        run.ref(),
                                        Optional.empty()); // the attach lands right after the
                                // listing
                            }
                        });

        SweepResult result = f.reaperOver(reattaching, f.settings()).sweep();

        assertThat(entry(result, run).outcome()).isEqualTo(SweepOutcome.NOT_CLAIMED);
        assertThat(f.fresh(run).detachedSince()).isEmpty();
        assertThat(f.fresh(run).driverEpoch()).isEmpty();
        assertThat(f.log.size(run.ref())).isZero();
    }

    @Test
    @DisplayName(
            "RP-07 a finished run whose replay outruns the budget → budget-exceeded, record terminal, log closed, reclaimed")
    void aReplayOverBudgetIsTerminalizedAnyway() {
        Box box = f.sandbox();
        RunRecordView run =
                f.run(box, "i=0; while [ $i -lt 200 ]; do echo line-$i; i=$((i+1)); done");
        f.awaitExit(box, run);
        f.detach(run, f.clock.instant());
        ReaperSettings noTime =
                new ReaperSettings(25, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(10));

        SweepResult result = f.reaper(noTime).sweep();

        RunEntry e = entry(result, run);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.BUDGET_EXCEEDED);
        assertThat(e.terminalizedAnyway()).isTrue();
        assertThat(e.reclaim()).contains(ReclaimOutcome.DESTROYED);
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("failed");
        assertThat(after.error().orElseThrow().code()).contains("budget-exceeded");
        assertThat(f.chunkTypes(run)).last().isEqualTo("RUN_ERROR");
        assertThat(f.containerExists(box.handle().id())).isFalse();
    }

    @Test
    @DisplayName(
            "producing runs at the head of the list do not hide a finished run behind them: the next sweep goes on after them")
    void sweepsWalkTheDetachedRunsSoNoneIsStarved() {
        Box box = f.sandbox();
        List<RunRecordView> producing = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            producing.add(
                    f.detach(
                            f.run(box, "echo working; sleep 60"),
                            f.clock.instant().minusSeconds(60 - i)));
        }
        Box doneBox = f.sandbox();
        RunRecordView finished = f.run(doneBox, "echo finished");
        f.awaitExit(doneBox, finished);
        f.detach(finished, f.clock.instant());
        Reaper reaper =
                f.reaper(
                        new ReaperSettings(
                                3, Duration.ofSeconds(30), Duration.ZERO, Duration.ofMinutes(10)));

        SweepResult first = reaper.sweep();
        SweepResult second = reaper.sweep();
        SweepResult third = reaper.sweep();

        assertThat(first.runs())
                .extracting(RunEntry::runId)
                .containsExactlyElementsOf(producing.stream().map(RunRecordView::runId).toList());
        assertThat(first.count(SweepOutcome.PRODUCING)).isEqualTo(3);
        assertThat(second.runs()).extracting(RunEntry::runId).containsExactly(finished.runId());
        assertThat(second.count(SweepOutcome.FINALIZED)).isEqualTo(1);
        assertThat(third.count(SweepOutcome.PRODUCING)).as("back at the head").isEqualTo(3);
    }

    @Test
    @DisplayName(
            "RP-11 a listing failure → considered 0 and all 8 outcome keys; the sweep does not throw")
    void aListingFailureIsAnEmptyResultNotAnException() {
        RunStore broken =
                wrap(
                        f.runs,
                        (method, args) -> {
                            if (method.equals("listReclaimable")) {
                                throw new IllegalStateException("database unreachable");
                            }
                        },
                        NOTHING);

        SweepResult result = f.reaperOver(broken, f.settings()).sweep();

        assertThat(result.considered()).isZero();
        assertThat(result.outcomes()).hasSize(8).containsOnlyKeys(SweepOutcome.values());
        assertThat(result.error())
                .hasValueSatisfying(m -> assertThat(m).contains("database unreachable"));
    }

    @Test
    @DisplayName("RP-11 one run's failure is failed for it; the other runs are still reaped")
    void oneRunsFailureDoesNotStopTheOthers() {
        Box brokenBox = f.sandbox();
        RunRecordView broken =
                f.detach(
                        f.runStartedAgo(
                                brokenBox, "sleep 60", Duration.ofHours(2), Duration.ofHours(1)),
                        f.clock.instant().minus(Duration.ofHours(2)));
        Box box = f.sandbox();
        RunRecordView fine = f.run(box, "echo fine");
        f.awaitExit(box, fine);
        f.detach(fine, f.clock.instant());
        RunStore failing =
                wrap(
                        f.runs,
                        (method, args) -> {
                            if (method.equals("setCancelRequested")
                                    && broken.ref().equals(args[0])) {
                                throw new IllegalStateException("write failed");
                            }
                        },
                        NOTHING);

        SweepResult result = f.reaperOver(failing, f.settings()).sweep();

        assertThat(entry(result, broken).outcome()).isEqualTo(SweepOutcome.FAILED);
        assertThat(entry(result, broken).error())
                .hasValueSatisfying(m -> assertThat(m).contains("write failed"));
        assertThat(entry(result, fine).outcome()).isEqualTo(SweepOutcome.FINALIZED);
        assertThat(result.count(SweepOutcome.FAILED)).isEqualTo(1);
        assertThat(result.count(SweepOutcome.FINALIZED)).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "RP-13 a reclaim that throws after the run was finalized (its first store call fails) → reclaim-failed, not failed,"
                    + " with the run's status and exit code")
    void aReclaimThatThrowsAfterTheRunFinishedStillReportsItsStatusAndExitCode() {
        Box box = f.sandbox();
        RunRecordView run = f.run(box, "echo done; exit 3");
        f.awaitExit(box, run);
        f.detach(run, f.clock.instant());
        RunStore failing =
                wrap(
                        f.runs,
                        (method, args) -> {
                            if (method.equals(
                                    "liveRunsUsing")) { // the reclaim's first store call, after the
                                // finalizer's terminal write
                                throw new IllegalStateException("database unreachable");
                            }
                        },
                        NOTHING);

        SweepResult result = f.reaperOver(failing, f.settings()).sweep();

        RunEntry e = entry(result, run);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.RECLAIM_FAILED);
        assertThat(result.count(SweepOutcome.FAILED)).isZero();
        assertThat(e.terminalizedAnyway()).isFalse();
        assertThat(e.status()).contains("failed");
        assertThat(e.exitCode()).contains(3);
        assertThat(e.error())
                .hasValueSatisfying(m -> assertThat(m).contains("database unreachable"));
        assertThat(f.fresh(run).status().wireName()).isEqualTo("failed");
    }

    @Test
    @DisplayName(
            "RP-07b a budget-exceeded run whose reclaim then throws → reclaim-failed, terminalizedAnyway kept on its line")
    void aBudgetExceededRunWhoseReclaimThrowsKeepsTerminalizedAnyway() {
        Box box = f.sandbox();
        RunRecordView run =
                f.run(box, "i=0; while [ $i -lt 200 ]; do echo line-$i; i=$((i+1)); done");
        f.awaitExit(box, run);
        f.detach(run, f.clock.instant());
        RunStore failing =
                wrap(
                        f.runs,
                        (method, args) -> {
                            if (method.equals("liveRunsUsing")) { // the reclaim's first call
                                throw new IllegalStateException("database unreachable");
                            }
                        },
                        NOTHING);
        ReaperSettings noTime =
                new ReaperSettings(25, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(10));

        SweepResult result = f.reaperOver(failing, noTime).sweep();

        RunEntry e = entry(result, run);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.RECLAIM_FAILED);
        assertThat(e.terminalizedAnyway()).isTrue();
        assertThat(e.error())
                .hasValueSatisfying(m -> assertThat(m).contains("database unreachable"));
        assertThat(f.fresh(run).error().orElseThrow().code()).contains("budget-exceeded");
    }

    /**
     * A look at one store call: its method name and arguments (and, after the call, its result).
     */
    interface Hook {
        void on(String method, Object[] args);
    }

    /**
     * The real store; {@code before} may throw instead of the call, {@code after} runs once it
     * returned.
     */
    static RunStore wrap(RunStore real, Hook before, Hook after) {
        return (RunStore)
                Proxy.newProxyInstance(
                        RunStore.class.getClassLoader(),
                        new Class<?>[] {RunStore.class},
                        (p, m, args) -> {
                            before.on(m.getName(), args);
                            try {
                                Object result = m.invoke(real, args);
                                after.on(m.getName(), args);
                                return result;
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }

    private static final Hook NOTHING = (m, a) -> {};
}
