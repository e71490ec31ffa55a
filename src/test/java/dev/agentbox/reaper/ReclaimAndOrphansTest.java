package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.reaper.SweepResult.RunEntry;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.SandboxInstance;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Reclaiming a run's sandbox (the orderings that matter) and collecting orphaned containers, on
 * Derby and Docker.
 */
class ReclaimAndOrphansTest extends ReaperDatabaseTest {

    private Reclaimer reclaimer(SandboxProvider... enabled) {
        List<SandboxProvider> list = List.of(enabled);
        return new Reclaimer(
                f.instances,
                name -> list.stream().filter(p -> p.name().equals(name)).findFirst(),
                f.runs,
                f.leases);
    }

    @Test
    @DisplayName(
            "RP-08 the provider's destroy fails → reclaim-failed naming the sandbox key, with the run's status and exit code;"
                    + " record deleted anyway")
    void aFailedDestroyIsReclaimFailedKeepsTheRunsStatusAndExitCodeAndTheRecordIsDeletedAnyway() {
        Box box = f.sandbox();
        RunRecordView run = f.run(box, "echo done");
        f.awaitExit(box, run);
        f.detach(run, f.clock.instant());

        SweepResult result = f.reaper(f.settings(), new FailingDestroyProvider(f.provider)).sweep();

        RunEntry e = result.runs().get(0);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.RECLAIM_FAILED);
        assertThat(e.status()).contains("completed");
        assertThat(e.exitCode()).contains(0);
        assertThat(e.reclaim()).contains(ReclaimOutcome.DESTROY_FAILED);
        assertThat(e.terminalizedAnyway()).as("finalized in time").isFalse();
        assertThat(e.error())
                .hasValueSatisfying(
                        m -> assertThat(m).contains(box.key()).contains("may still be running"));
        assertThat(result.count(SweepOutcome.RECLAIM_FAILED)).isEqualTo(1);
        assertThat(result.count(SweepOutcome.FINALIZED)).isZero();
        assertThat(f.instances.find(f.tenant, box.key())).isEmpty();
        assertThat(f.containerExists(box.handle().id()))
                .as("the leak is real, and reported")
                .isTrue();
        assertThat(f.fresh(run).status().wireName()).isEqualTo("completed");
    }

    @Test
    @DisplayName(
            "RP-07b a budget-exceeded run whose destroy then fails → reclaim-failed, terminalizedAnyway kept on its line")
    void aBudgetExceededRunWhoseReclaimFailsKeepsTerminalizedAnyway() {
        Box box = f.sandbox();
        RunRecordView run =
                f.run(box, "i=0; while [ $i -lt 200 ]; do echo line-$i; i=$((i+1)); done");
        f.awaitExit(box, run);
        f.detach(run, f.clock.instant());
        ReaperSettings noTime =
                new ReaperSettings(25, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(10));

        SweepResult result = f.reaper(noTime, new FailingDestroyProvider(f.provider)).sweep();

        RunEntry e = result.runs().get(0);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.RECLAIM_FAILED);
        assertThat(e.terminalizedAnyway()).isTrue();
        assertThat(e.reclaim()).contains(ReclaimOutcome.DESTROY_FAILED);
        assertThat(e.status()).contains("failed");
        assertThat(result.count(SweepOutcome.BUDGET_EXCEEDED))
                .as("the reclaim failure overrides the outcome")
                .isZero();
        assertThat(f.fresh(run).error().orElseThrow().code()).contains("budget-exceeded");
    }

    @Test
    @DisplayName(
            "RP-13 a reclaim that throws after the run was finalized (its record delete fails) → reclaim-failed, never failed;"
                    + " the run keeps its status and exit code")
    void aReclaimThatThrowsAfterFinalizingIsReclaimFailedNotFailed() {
        Box box = f.sandbox();
        RunRecordView run = f.run(box, "echo done");
        f.awaitExit(box, run);
        f.detach(run, f.clock.instant());

        SweepResult result =
                f.reaperReclaimingThrough(
                                FaultyInstanceStore.failing(f.instances, "delete"), f.settings())
                        .sweep();

        RunEntry e = result.runs().get(0);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.RECLAIM_FAILED);
        assertThat(e.status()).contains("completed");
        assertThat(e.exitCode()).contains(0);
        assertThat(e.error())
                .hasValueSatisfying(
                        m -> assertThat(m).contains("connection refused during delete"));
        assertThat(result.count(SweepOutcome.RECLAIM_FAILED)).isEqualTo(1);
        assertThat(result.count(SweepOutcome.FAILED)).isZero();
        assertThat(result.count(SweepOutcome.FINALIZED)).isZero();
        assertThat(f.fresh(run).status().wireName()).isEqualTo("completed");
    }

    @Test
    @DisplayName(
            "RP-13 a runaway run whose reclaim throws before the destroy is still aborted max-duration → reclaim-failed,"
                    + " its container left running and reported")
    void aRunawayRunWhoseReclaimThrowsIsAbortedAndReclaimFailed() {
        Box box = f.sandbox();
        RunRecordView run =
                f.detach(
                        f.runStartedAgo(
                                box,
                                "echo working; sleep 60",
                                Duration.ofHours(2),
                                Duration.ofHours(1)),
                        f.clock.instant().minus(Duration.ofMinutes(1)));

        SweepResult result =
                f.reaperReclaimingThrough(
                                FaultyInstanceStore.failing(f.instances, "find"), f.settings())
                        .sweep();

        RunEntry e = result.runs().get(0);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.RECLAIM_FAILED);
        assertThat(e.status()).contains("aborted");
        assertThat(e.error())
                .hasValueSatisfying(m -> assertThat(m).contains("connection refused during find"));
        assertThat(result.count(SweepOutcome.EXPIRED)).isZero();
        assertThat(result.count(SweepOutcome.FAILED)).isZero();
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("aborted");
        assertThat(after.error().orElseThrow().code()).contains("max-duration");
        assertThat(f.chunkTypes(run)).containsExactly("RUN_ERROR");
        assertThat(f.containerExists(box.handle().id()))
                .as("the reclaim never reached the destroy")
                .isTrue();
    }

    @Test
    @DisplayName(
            "RP-09 a record of a provider this server does not run → provider-mismatch, record and container untouched")
    void aRecordOfAnotherProviderIsRefused() {
        Box box = f.sandbox();
        RunRecordView run = f.run(box, "echo done");
        f.awaitExit(box, run);
        SandboxInstance record = f.instances.find(f.tenant, box.key()).orElseThrow();
        f.instances.delete(f.tenant, box.key());
        f.instances.upsert(
                new SandboxInstance(
                        box.key(),
                        f.tenant,
                        "other-cloud",
                        record.providerSandboxId(),
                        null,
                        record.createdAt(),
                        record.keepAliveMs()));

        Reclaimer.Reclaim reclaim = reclaimer(f.provider).reclaim(f.fresh(run));

        assertThat(reclaim.outcome()).isEqualTo(ReclaimOutcome.PROVIDER_MISMATCH);
        assertThat(f.instances.find(f.tenant, box.key()))
                .hasValueSatisfying(i -> assertThat(i.provider()).isEqualTo("other-cloud"));
        assertThat(f.containerExists(box.handle().id())).isTrue();
    }

    @Test
    @DisplayName(
            "reclaim: no sandbox key, no record, and a sandbox another live run uses are each left alone and told apart")
    void reclaimTellsWhyItDidNothing() {
        Box box = f.sandbox();
        RunRecordView first = f.run(box, "echo one");
        RunRecordView second = f.run(box, "sleep 30");
        f.runs.setSandboxKey(second.ref(), Optional.of(box.key()));

        assertThat(reclaimer(f.provider).reclaim(f.fresh(first)).outcome())
                .isEqualTo(ReclaimOutcome.IN_USE);
        assertThat(f.containerExists(box.handle().id())).isTrue();
        f.runs.setSandboxKey(first.ref(), Optional.empty());
        assertThat(reclaimer(f.provider).reclaim(f.fresh(first)).outcome())
                .isEqualTo(ReclaimOutcome.NO_SANDBOX_KEY);
        f.instances.delete(f.tenant, box.key());
        assertThat(reclaimer(f.provider).reclaim(f.fresh(second)).outcome())
                .isEqualTo(ReclaimOutcome.NOT_FOUND);
    }

    @Test
    @DisplayName("reclaim: a sandbox whose ensure holds its lease is kept")
    void aSandboxBeingEnsuredIsKept() {
        Box box = f.sandbox();
        RunRecordView run = f.run(box, "echo one");
        try (var ensuring =
                f.leases
                        .acquire(
                                LeaseNames.sandbox(box.key()),
                                Duration.ofSeconds(30),
                                Duration.ZERO)
                        .orElseThrow()) {
            assertThat(reclaimer(f.provider).reclaim(f.fresh(run)).outcome())
                    .isEqualTo(ReclaimOutcome.IN_USE);
        }
        assertThat(f.containerExists(box.handle().id())).isTrue();
        assertThat(reclaimer(f.provider).reclaim(f.fresh(run)).outcome())
                .isEqualTo(ReclaimOutcome.DESTROYED);
        assertThat(f.containerExists(box.handle().id())).isFalse();
    }

    @Test
    @DisplayName(
            "orphans: an unrecorded container of this installation older than the grace is destroyed; young, foreign, recorded ones stay")
    void orphanedContainersAreFoundByLabelAndDestroyed() {
        String orphan = f.unrecordedContainer(ReaperFixture.INSTALLATION);
        String foreign = f.unrecordedContainer("another-installation");
        String unlabelled = f.unrecordedContainer(null);
        Box recorded = f.sandbox();
        assertThat(f.labelsOf(orphan))
                .containsEntry(SandboxLabels.INSTALLATION, ReaperFixture.INSTALLATION)
                .containsEntry(SandboxLabels.MANAGED, "true");
        ReaperSettings settings = f.settings();

        SweepResult young = f.reaper(settings).sweep();
        assertThat(young.orphans().destroyed()).doesNotContain("docker:" + orphan);
        assertThat(f.containerExists(orphan)).isTrue();

        f.clock.advance(settings.orphanGrace().plusMinutes(1));
        SweepResult old = f.reaper(settings).sweep();

        // The engine is shared with the other Docker tests of this JVM: another test's leftover
        // of the same installation may be swept too, so only this test's containers are judged.
        assertThat(old.orphans().destroyed())
                .contains("docker:" + orphan)
                .doesNotContain(
                        "docker:" + foreign,
                        "docker:" + unlabelled,
                        "docker:" + recorded.handle().id());
        assertThat(f.containerExists(orphan)).isFalse();
        assertThat(f.containerExists(foreign)).isTrue();
        assertThat(f.containerExists(unlabelled)).isTrue();
        assertThat(f.containerExists(recorded.handle().id())).isTrue();
    }

    @Test
    @DisplayName(
            "orphans: a container whose ensure is still running (its key's lease is held) is not an orphan")
    void aContainerWhoseEnsureIsRunningIsNotAnOrphan() {
        String orphan = f.unrecordedContainer(ReaperFixture.INSTALLATION);
        String key = f.labelsOf(orphan).get(SandboxLabels.KEY);
        f.clock.advance(Duration.ofHours(1));
        try (var ensuring =
                f.leases
                        .acquire(LeaseNames.sandbox(key), Duration.ofSeconds(30), Duration.ZERO)
                        .orElseThrow()) {
            assertThat(f.reaper(f.settings()).sweep().orphans().destroyed()).isEmpty();
            assertThat(f.containerExists(orphan)).isTrue();
        }
        assertThat(f.reaper(f.settings()).sweep().orphans().destroyed())
                .containsExactly("docker:" + orphan);
    }
}
