package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.lease.InMemoryLeaseStore;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.platform.lease.ServerSession.GoneLease;
import dev.agentbox.run.RunService.Adoption;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.InMemoryRuns;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * TK-16: a server takes over only the runs whose sandbox's provider it has enabled, by either path
 * (a free lease, an ended server session); a server without it leaves the run for one that has it,
 * which is how two servers of one installation may enable different providers. The successors are
 * registered but never started: what is checked is the decision, not the drive.
 */
class TakeoverProvidersTest {

    private static final long LEASE_TTL_MS = 10_000;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Clock clock = Clock.systemUTC();
    private final InMemoryRuns runs = new InMemoryRuns();
    private final Leases leases = new Leases(new InMemoryLeaseStore(), clock, "node-b", scheduler);
    private final LocalDrivers drivers = new LocalDrivers(new NeverStarted());
    private final List<String> asked = new ArrayList<>();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private Takeovers takeovers(boolean providerHere) {
        RunContext context =
                InMemoryRunContext.of(
                        runs,
                        clock,
                        "node-b",
                        leases,
                        new RunContext.Takeover(
                                Duration.ofMillis(LEASE_TTL_MS),
                                Duration.ofSeconds(2),
                                Duration.ZERO,
                                Duration.ZERO));
        return new Takeovers(
                context,
                runs,
                leases,
                clock,
                drivers,
                "node-b",
                LEASE_TTL_MS,
                10,
                (tenant, key) -> {
                    asked.add(tenant + "/" + key);
                    return providerHere;
                });
    }

    /** A run on sandbox {@code box-1}, older than one lease TTL, whose driver holds no lease. */
    private RunRecordView orphan() {
        String runId = "run-" + UUID.randomUUID();
        return runs.create(
                        new NewRun(
                                "tenant-a",
                                runId,
                                "thread-" + runId,
                                Harness.COMMAND,
                                clock.instant().minusMillis(3 * LEASE_TTL_MS),
                                true,
                                true,
                                false,
                                Optional.of("echo hi"),
                                Optional.empty(),
                                Optional.of("box-1")))
                .orElseThrow();
    }

    @Test
    void aRunWhoseLeaseIsFreeIsLeftAloneByAServerWithoutItsProvider() {
        RunRecordView run = orphan();

        assertThat(takeovers(false).adopt(run, "test")).isEqualTo(Adoption.NOT_ELIGIBLE);

        assertThat(drivers.drives(run.ref())).isFalse();
        assertThat(asked).containsExactly("tenant-a/box-1");
    }

    @Test
    void aRunWhoseLeaseIsFreeIsTakenOverByAServerWithItsProvider() {
        RunRecordView run = orphan();

        assertThat(takeovers(true).adopt(run, "test")).isEqualTo(Adoption.STARTED);

        assertThat(drivers.drives(run.ref())).isTrue();
    }

    @Test
    void aRunOfAnEndedSessionIsLeftAloneByAServerWithoutItsProviderAndTakenByOneWithIt() {
        RunRecordView run = orphan();
        GoneLease gone = new GoneLease(LeaseNames.runDriver(run.ref().id()), 7);

        takeovers(false).adoptGone(List.of(gone));
        assertThat(drivers.drives(run.ref())).as("left for a server with the provider").isFalse();

        takeovers(true).adoptGone(List.of(gone));
        assertThat(drivers.drives(run.ref())).isTrue();
        assertThat(asked).containsExactly("tenant-a/box-1", "tenant-a/box-1");
    }

    @Test
    void aServerWithoutTheProviderAsksOnceNotOnEverySessionPoll() {
        RunRecordView run = orphan();
        GoneLease gone = new GoneLease(LeaseNames.runDriver(run.ref().id()), 7);
        Takeovers here = takeovers(false);

        for (int poll = 0; poll < 5; poll++) {
            here.adoptGone(List.of(gone));
        }
        assertThat(here.adopt(run, "test")).isEqualTo(Adoption.NOT_ELIGIBLE);

        assertThat(drivers.drives(run.ref())).isFalse();
        assertThat(asked).as("a key names its provider: one answer holds").hasSize(1);
    }

    @Test
    void aRunWithoutASandboxNeedsNoProvider() {
        String runId = "run-" + UUID.randomUUID();
        RunRecordView run =
                runs.create(
                                NewRun.durable(
                                        "tenant-a",
                                        runId,
                                        "thread-1",
                                        Harness.COMMAND,
                                        clock.instant().minusMillis(3 * LEASE_TTL_MS)))
                        .orElseThrow();

        assertThat(takeovers(false).adopt(run, "test")).isEqualTo(Adoption.STARTED);
        assertThat(asked).isEmpty();
    }

    /** Threads that never start their work: a launched successor stays registered, idle. */
    private static final class NeverStarted implements ManagedThreadFactory {
        @Override
        public Thread newThread(Runnable work) {
            return new Thread(() -> {});
        }

        @Override
        public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
            throw new UnsupportedOperationException();
        }
    }
}
