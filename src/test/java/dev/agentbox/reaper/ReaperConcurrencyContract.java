package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.reaper.SweepResult.RunEntry;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.testing.NeedsDocker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Sweeps that overlap — two servers on one database, or two ticks of one server — and the per-sweep
 * limit, on each database backend. The run table is emptied first: a sweep lists the detached runs
 * of every tenant.
 */
@NeedsDocker
abstract class ReaperConcurrencyContract {

    protected abstract TestDatabase db();

    private ReaperFixture a;

    @BeforeEach
    void fixture() {
        ReaperDatabaseTest.clear(db());
        a = new ReaperFixture(db(), "node-a");
    }

    @AfterEach
    void cleanUp() {
        a.close();
    }

    private List<RunRecordView> finishedDetachedRuns(Box box, int n) {
        List<RunRecordView> runs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            runs.add(a.run(box, "echo output-" + i));
        }
        for (int i = 0; i < n; i++) {
            a.awaitExit(box, runs.get(i));
            // distinct detach times: the sweep takes the longest detached first
            runs.set(i, a.detach(runs.get(i), a.clock.instant().minusSeconds(n - i)));
        }
        return runs;
    }

    @Test
    @DisplayName(
            "RP-10 30 finished detached runs → 25 finalized by the first sweep, the other 5 by the next")
    void aSweepTakesAtMostMaxRunsLongestDetachedFirst() {
        Box box = a.sandbox();
        List<RunRecordView> runs = finishedDetachedRuns(box, 30);

        SweepResult first = a.reaper(a.settings()).sweep();
        SweepResult second = a.reaper(a.settings()).sweep();

        assertThat(first.considered()).isEqualTo(25);
        assertThat(first.count(SweepOutcome.FINALIZED)).isEqualTo(25);
        assertThat(first.runs())
                .extracting(RunEntry::runId)
                .containsExactlyElementsOf(
                        runs.subList(0, 25).stream().map(RunRecordView::runId).toList());
        assertThat(second.considered()).isEqualTo(5);
        assertThat(second.count(SweepOutcome.FINALIZED)).isEqualTo(5);
        // The sandbox is shared: it is kept while another run still uses it, and goes with the last
        // one.
        assertThat(first.runs())
                .allSatisfy(e -> assertThat(e.reclaim()).contains(ReclaimOutcome.IN_USE));
        assertThat(second.runs())
                .filteredOn(
                        e -> e.reclaim().equals(java.util.Optional.of(ReclaimOutcome.DESTROYED)))
                .as("the last of the sandbox's runs to end destroys it")
                .hasSize(1);
        assertThat(a.containerExists(box.handle().id())).isFalse();
        assertThat(a.reaper(a.settings()).sweep().considered()).isZero();
    }

    @Test
    @DisplayName("RP-12 two servers sweeping at once → each run finalized exactly once")
    void twoServersSweepingAtOnceFinalizeEachRunOnce() throws Exception {
        try (ReaperFixture b = new ReaperFixture(db(), "node-b", a.provider)) {
            assertEachRunFinalizedOnce(a.reaper(a.settings()), b.reaper(b.settings()));
        }
    }

    @Test
    @DisplayName("RP-12 two overlapping sweeps of one server → each run finalized exactly once")
    void overlappingSweepsOfOneServerFinalizeEachRunOnce() throws Exception {
        assertEachRunFinalizedOnce(a.reaper(a.settings()), a.reaper(a.settings()));
    }

    private void assertEachRunFinalizedOnce(Reaper one, Reaper two) throws Exception {
        List<Box> boxes = List.of(a.sandbox(), a.sandbox());
        List<RunRecordView> runs = new ArrayList<>();
        for (Box box : boxes) {
            runs.addAll(finishedDetachedRuns(box, 3));
        }
        CountDownLatch start = new CountDownLatch(1);
        CompletableFuture<SweepResult> r1 = CompletableFuture.supplyAsync(() -> await(start, one));
        CompletableFuture<SweepResult> r2 = CompletableFuture.supplyAsync(() -> await(start, two));
        start.countDown();
        SweepResult s1 = r1.get(120, TimeUnit.SECONDS);
        SweepResult s2 = r2.get(120, TimeUnit.SECONDS);

        for (RunRecordView run : runs) {
            long finalized =
                    List.of(s1, s2).stream()
                            .flatMap(s -> s.runs().stream())
                            .filter(
                                    e ->
                                            e.runId().equals(run.runId())
                                                    && e.outcome() == SweepOutcome.FINALIZED)
                            .count();
            assertThat(finalized).as(run.runId()).isEqualTo(1);
            List<String> types = a.chunkTypes(run);
            assertThat(types.stream().filter("RUN_FINISHED"::equals)).as(run.runId()).hasSize(1);
            assertThat(types).last().isEqualTo("RUN_FINISHED");
            assertThat(a.fresh(run).status().wireName()).isEqualTo("completed");
            assertThat(a.fresh(run).driverEpoch().getAsLong()).as("claimed once").isEqualTo(1);
        }
        assertThat(s1.count(SweepOutcome.FINALIZED) + s2.count(SweepOutcome.FINALIZED))
                .isEqualTo(runs.size());
        assertThat(s1.count(SweepOutcome.FAILED) + s2.count(SweepOutcome.FAILED)).isZero();
        for (Box box : boxes) {
            assertThat(a.containerExists(box.handle().id())).isFalse();
        }
    }

    private static SweepResult await(CountDownLatch start, Reaper reaper) {
        try {
            start.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return reaper.sweep();
    }
}
