package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.run.RunDriver;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.store.RunRecordView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs whose driver is gone, watched or not, against real parts (Derby, BusyBox containers): a
 * sweep drives them on through its adopter, aborts the cancelled and the runaway ones, and leaves
 * alone every run a live driver holds or that is too young to have taken its lease.
 */
class UnattendedRunsTest extends ReaperDatabaseTest {

    private static final Duration SIX_HOURS = Duration.ofHours(6);

    private static SweepResult.Unattended unattended(SweepResult result, RunRecordView run) {
        return result.unattended().stream()
                .filter(u -> u.runId().equals(run.runId()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    @DisplayName(
            "a never-watched run whose driver left is driven on by the sweeping server: exact transcript, completed")
    void aNeverWatchedRunWhoseDriverIsGoneIsDrivenOnByTheReaper() throws Exception {
        Box box = f.sandbox();
        String gate = "/tmp/gate-" + UUID.randomUUID();
        RunRecordView run =
                f.recordStartedAgo(box, "(agent below)", Duration.ofMinutes(1), SIX_HOURS);
        // A first driver starts the agent, forwards two lines and leaves (its server went away).
        RunDriver first =
                new RunDriver(
                        f.ctx,
                        run,
                        Optional.empty(),
                        AgentInvocation.of(
                                "echo line-1; echo line-2; while [ ! -f "
                                        + gate
                                        + " ]; do sleep 0.05; done; echo line-3"));
        Thread driving = new Thread(first);
        driving.start();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> f.chunkJson(run).stream().anyMatch(c -> c.contains("line-2")));
        first.leave();
        driving.join(10_000);
        box.handle().process().exec("touch " + gate);
        List<RunRecordView> adopted = new ArrayList<>();

        SweepResult result =
                f.reaper(f.settings())
                        .withAdopter(
                                r -> {
                                    adopted.add(r);
                                    RunDriver.successor(
                                                    f.ctx,
                                                    r,
                                                    dev.agentbox.run.TakeoverCause.LEASE_EXPIRED)
                                            .execute();
                                    return "started";
                                })
                        .sweep();

        assertThat(adopted).extracting(RunRecordView::runId).containsExactly(run.runId());
        assertThat(unattended(result, run).action()).isEqualTo("started");
        assertThat(result.considered()).as("never detached: not a detached-run candidate").isZero();
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("completed");
        assertThat(after.driverEpoch()).hasValue(2);
        List<String> chunks = f.chunkJson(run);
        for (String line : List.of("line-1", "line-2", "line-3")) {
            assertThat(chunks.stream().filter(c -> c.contains(line))).as(line).hasSize(1);
        }
        assertThat(f.chunkTypes(run).get(f.chunkTypes(run).size() - 1)).isEqualTo("RUN_FINISHED");
    }

    @Test
    @DisplayName(
            "a run whose driver lease is held elsewhere, or younger than one lease TTL, is not adopted")
    void aLiveOrYoungRunIsNotAdopted() {
        Box box = f.sandbox();
        RunRecordView held = f.runStartedAgo(box, "sleep 60", Duration.ofMinutes(1), SIX_HOURS);
        RunRecordView young = f.runStartedAgo(box, "sleep 60", Duration.ofSeconds(1), SIX_HOURS);
        List<RunRecordView> adopted = new ArrayList<>();
        try (HeldLease lease =
                f.leases
                        .acquire(
                                LeaseNames.runDriver(held.ref().id()),
                                Duration.ofSeconds(60),
                                Duration.ZERO)
                        .orElseThrow()) {
            SweepResult result =
                    f.reaper(f.settings())
                            .withAdopter(
                                    r -> {
                                        adopted.add(r);
                                        return "started";
                                    })
                            .sweep();

            assertThat(adopted).isEmpty();
            assertThat(result.unattended()).isEmpty();
        }
        assertThat(f.fresh(held).version()).isEqualTo(held.version());
        assertThat(f.fresh(young).version()).isEqualTo(young.version());
    }

    @Test
    @DisplayName(
            "a cancelled run that no driver holds is aborted by the sweep and its sandbox destroyed")
    void aCancelledRunNobodyDrivesIsAborted() {
        Box box = f.sandbox();
        RunRecordView run =
                f.runStartedAgo(box, "echo working; sleep 60", Duration.ofMinutes(1), SIX_HOURS);
        f.runs.setCancelRequested(run.ref(), Optional.of(true));

        SweepResult result = f.reaper(f.settings()).withAdopter(r -> "started").sweep();

        assertThat(unattended(result, run).action()).isEqualTo("aborted (cancelled)");
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("aborted");
        assertThat(after.error().orElseThrow().code()).contains("aborted");
        assertThat(f.chunkTypes(run)).containsExactly("RUN_ERROR");
        assertThat(f.containerExists(box.handle().id())).isFalse();
    }

    @Test
    @DisplayName(
            "a watched (not detached) run past its maxDurationMs that no driver holds is aborted max-duration")
    void aRunawayRunNobodyDrivesIsAbortedMaxDuration() {
        Box box = f.sandbox();
        RunRecordView run =
                f.runStartedAgo(
                        box, "echo working; sleep 60", Duration.ofHours(2), Duration.ofHours(1));

        SweepResult result = f.reaper(f.settings()).withAdopter(r -> "started").sweep();

        assertThat(unattended(result, run).action()).isEqualTo("aborted (max-duration)");
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("aborted");
        assertThat(after.cancelRequested()).contains(true);
        assertThat(after.error().orElseThrow().code()).contains("max-duration");
        assertThat(f.containerExists(box.handle().id())).isFalse();
    }

    @Test
    @DisplayName(
            "RP-13 a runaway run nobody drives whose reclaim throws is aborted max-duration and its action says reclaim-failed")
    void aRunawayRunNobodyDrivesWhoseReclaimThrowsSaysReclaimFailed() {
        Box box = f.sandbox();
        RunRecordView run =
                f.runStartedAgo(
                        box, "echo working; sleep 60", Duration.ofHours(2), Duration.ofHours(1));

        SweepResult result =
                f.reaperReclaimingThrough(
                                FaultyInstanceStore.failing(f.instances, "find"), f.settings())
                        .withAdopter(r -> "started")
                        .sweep();

        assertThat(unattended(result, run).action())
                .isEqualTo("aborted (max-duration), reclaim-failed");
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("aborted");
        assertThat(after.error().orElseThrow().code()).contains("max-duration");
        assertThat(f.containerExists(box.handle().id())).isTrue();
    }
}
