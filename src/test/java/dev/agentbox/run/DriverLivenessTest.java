package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.lease.InMemoryLeaseStore;
import dev.agentbox.platform.lease.Lease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.LeaseStore;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.InMemoryRuns;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * RN-01: a run is reported {@code interrupted} while it is not terminal and no live driver holds
 * its lease, {@code running} otherwise; the stored status is never changed for it.
 */
class DriverLivenessTest {

    private static final Duration TTL = Duration.ofSeconds(3);
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final InMemoryRuns runs = new InMemoryRuns();
    private final SettableClock clock = new SettableClock(T0);
    private final AtomicInteger lookups = new AtomicInteger();
    private final InMemoryLeaseStore store = new InMemoryLeaseStore();
    private final LeaseStore counting =
            (LeaseStore)
                    java.lang.reflect.Proxy.newProxyInstance(
                            LeaseStore.class.getClassLoader(),
                            new Class<?>[] {LeaseStore.class},
                            (proxy, method, args) -> {
                                if (method.getName().startsWith("find")) {
                                    lookups.incrementAndGet();
                                }
                                return method.invoke(store, args);
                            });
    private final Leases leases = new Leases(counting, clock, "node", null);
    private final DriverLiveness liveness = new DriverLiveness(leases, clock, TTL);

    private RunRecordView run(String runId) {
        return runs.create(NewRun.durable("t", runId, "thread", Harness.COMMAND, T0)).orElseThrow();
    }

    private String leaseOf(RunRecordView run) {
        return LeaseNames.runDriver(run.ref().id());
    }

    private static RunStatus derive(RunRecordView run, Optional<Lease> lease, Instant now) {
        return DriverLiveness.derive(run, lease, now, TTL, key -> key == 66L);
    }

    @Test
    void aRunWithALiveDriverLeaseIsRunning() {
        RunRecordView r = run("r1");
        Instant now = T0.plusSeconds(10);
        Lease live = new Lease(leaseOf(r), "h", now.plusSeconds(1));
        assertThat(derive(r, Optional.of(live), now)).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void aRunWithoutAnyDriverLeaseIsInterruptedOnceOlderThanOneTtl() {
        RunRecordView r = run("r1");
        assertThat(derive(r, Optional.empty(), T0.plus(TTL).minusMillis(1)))
                .as("its first driver may not have taken the lease yet")
                .isEqualTo(RunStatus.RUNNING);
        assertThat(derive(r, Optional.empty(), T0.plus(TTL))).isEqualTo(RunStatus.INTERRUPTED);
    }

    @Test
    void anExpiredOrReleasedLeaseMeansInterrupted() {
        RunRecordView r = run("r1");
        Instant now = T0.plusSeconds(10);
        assertThat(derive(r, Optional.of(new Lease(leaseOf(r), "h", now)), now))
                .as("expiry is exclusive")
                .isEqualTo(RunStatus.INTERRUPTED);
        assertThat(
                        derive(
                                r,
                                Optional.of(
                                        new Lease(
                                                leaseOf(r),
                                                "h",
                                                now.plusSeconds(5),
                                                OptionalLong.empty(),
                                                true)),
                                now))
                .isEqualTo(RunStatus.INTERRUPTED);
    }

    @Test
    void aLeaseHeldUnderAServerSessionThatEndedMeansInterrupted() {
        RunRecordView r = run("r1");
        Instant now = T0.plusSeconds(10);
        Lease gone = new Lease(leaseOf(r), "h", now.plusSeconds(2), OptionalLong.of(66L), false);
        Lease alive = new Lease(leaseOf(r), "h", now.plusSeconds(2), OptionalLong.of(77L), false);
        assertThat(derive(r, Optional.of(gone), now)).isEqualTo(RunStatus.INTERRUPTED);
        assertThat(derive(r, Optional.of(alive), now)).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void aTerminalRunKeepsItsStatusWhateverItsLease() {
        RunRecordView r = run("r1");
        runs.claim(r.ref(), "node");
        runs.finishRun(r.ref(), 1, RunStatus.COMPLETED, T0, Optional.empty());
        RunRecordView done = runs.findById(r.ref()).orElseThrow();
        assertThat(derive(done, Optional.empty(), T0.plusSeconds(60)))
                .isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void aPageIsReportedWithOneLeaseLookupAndRunningAgainOnceASuccessorHoldsTheLease() {
        RunRecordView driven = run("driven");
        RunRecordView orphan = run("orphan");
        RunRecordView done = run("done");
        runs.claim(done.ref(), "node");
        runs.finishRun(done.ref(), 1, RunStatus.FAILED, T0, Optional.empty());
        done = runs.findById(done.ref()).orElseThrow();
        clock.set(T0.plusSeconds(10));
        store.tryAcquire(leaseOf(driven), "a", clock.instant(), TTL);
        store.tryAcquire(leaseOf(orphan), "a", T0, TTL);

        List<RunRecordView> page = liveness.reported(List.of(driven, orphan, done));
        assertThat(page)
                .extracting(RunRecordView::status)
                .containsExactly(RunStatus.RUNNING, RunStatus.INTERRUPTED, RunStatus.FAILED);
        assertThat(lookups).hasValue(1);
        assertThat(runs.findById(orphan.ref()).orElseThrow().status())
                .as("stored status untouched")
                .isEqualTo(RunStatus.RUNNING);

        store.tryAcquire(leaseOf(orphan), "successor", clock.instant(), TTL);
        assertThat(liveness.reported(orphan).status()).isEqualTo(RunStatus.RUNNING);
        clock.set(clock.instant().plus(TTL));
        assertThat(liveness.reported(orphan).status()).isEqualTo(RunStatus.INTERRUPTED);
    }

    @Test
    void sessionsAPollReportedGoneMakeTheirLeasesInterrupted() {
        RunRecordView r = run("r1");
        clock.set(T0.plusSeconds(10));
        store.tryAcquire(leaseOf(r), "a", OptionalLong.of(5L), clock.instant(), TTL);
        assertThat(liveness.reported(r).status()).isEqualTo(RunStatus.RUNNING);
        liveness.sessionsGone(List.of(5L));
        assertThat(liveness.reported(r).status()).isEqualTo(RunStatus.INTERRUPTED);
        store.takeFromGoneSession(leaseOf(r), "b", OptionalLong.of(6L), 5L, clock.instant(), TTL);
        assertThat(liveness.reported(r).status()).isEqualTo(RunStatus.RUNNING);
    }
}
