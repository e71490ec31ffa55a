package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.lease.InMemoryLeaseStore;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.InMemoryRuns;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A successor's quiet window against the in-memory stores: a log that keeps growing means its
 * driver is alive after all, whatever its lease says.
 */
class TakeoverQuietWindowTest {

    private static final Duration QUIET = Duration.ofMillis(100);

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Clock clock = Clock.systemUTC();
    private final InMemoryRuns runs = new InMemoryRuns();
    private final AtomicBoolean writing = new AtomicBoolean(true);

    @AfterEach
    void stop() {
        writing.set(false);
        scheduler.shutdownNow();
    }

    private RunContext context() {
        return InMemoryRunContext.of(
                runs,
                clock,
                "node-b",
                new Leases(new InMemoryLeaseStore(), clock, "node-b", scheduler),
                new RunContext.Takeover(
                        Duration.ofSeconds(10), Duration.ofSeconds(2), QUIET, Duration.ZERO));
    }

    /**
     * TK-08: a predecessor that goes on appending faster than the quiet window: the successor gives
     * up after six probes without claiming or writing anything.
     */
    @Test
    void aSuccessorBacksOffFromALogThatNeverQuiesces() throws Exception {
        RunRecordView run =
                runs.create(
                                NewRun.durable(
                                        "tenant",
                                        "run-" + UUID.randomUUID(),
                                        "thread-1",
                                        Harness.COMMAND,
                                        clock.instant()))
                        .orElseThrow();
        long epoch = runs.claim(run.ref(), "node-a").orElseThrow();
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), clock::millis);
        AtomicInteger appended = new AtomicInteger();
        Thread predecessor =
                new Thread(
                        () -> {
                            while (writing.get()) {
                                runs.append(
                                        run.ref(),
                                        epoch,
                                        List.of(chunks.textMessageContent("m", "still here")));
                                appended.incrementAndGet();
                                try {
                                    Thread.sleep(QUIET.toMillis() / 5);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        });
        predecessor.start();

        long t0 = System.nanoTime();
        RunDriver.Result result =
                RunDriver.successor(context(), run, TakeoverCause.LEASE_EXPIRED).execute();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        writing.set(false);
        predecessor.join(5_000);

        assertThat(result.ending()).isEqualTo(RunDriver.Ending.NOT_CLAIMED);
        assertThat(ms).as("six probes of the quiet window").isGreaterThanOrEqualTo(6 * 100);
        assertThat(runs.epoch(run.ref())).hasValue(epoch);
        assertThat(runs.size(run.ref())).isEqualTo(appended.get());
        assertThat(runs.findById(run.ref()).orElseThrow().status().wireName()).isEqualTo("running");
    }
}
