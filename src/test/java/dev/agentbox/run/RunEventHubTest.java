package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRef;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RunEventHubTest {

    private final RunEventHub hub = new RunEventHub();
    private final RunRef run = new RunRef("run-1");

    private static List<LoggedChunk> chunks(long from, long to) {
        return LongStream.rangeClosed(from, to)
                .mapToObj(s -> new LoggedChunk(s, "TEXT_MESSAGE_CONTENT", "{}"))
                .toList();
    }

    private static List<Long> seqs(List<LoggedChunk> chunks) {
        return chunks.stream().map(LoggedChunk::seq).toList();
    }

    @Test
    void memoryAnswersOnlyReadersItCanContinueExactly() {
        hub.publish(run, chunks(3, 6));
        assertThat(hub.recentAfter(run, 2))
                .hasValueSatisfying(c -> assertThat(seqs(c)).containsExactly(3L, 4L, 5L, 6L));
        assertThat(hub.recentAfter(run, 4))
                .hasValueSatisfying(c -> assertThat(seqs(c)).containsExactly(5L, 6L));
        assertThat(hub.recentAfter(run, 6)).hasValueSatisfying(c -> assertThat(c).isEmpty());
        assertThat(hub.recentAfter(run, 1)).as("behind the buffer: the table answers").isEmpty();
        assertThat(hub.recentAfter(new RunRef("other"), 0)).isEmpty();
    }

    @Test
    void publishesArrivingOutOfOrderNeverLeaveAGapInMemory() {
        hub.publish(run, chunks(1, 2));
        hub.publish(run, chunks(6, 8)); // appended after 3..5, published before them
        assertThat(hub.recentAfter(run, 2)).as("3..5 are not in memory").isEmpty();
        hub.publish(run, chunks(3, 5));
        assertThat(hub.recentAfter(run, 2))
                .hasValueSatisfying(c -> assertThat(seqs(c)).containsExactly(3L, 4L, 5L));
        assertThat(hub.recentAfter(run, 5)).hasValueSatisfying(c -> assertThat(c).isEmpty());
    }

    @Test
    void theTerminalChunkDropsTheRunsChunksFromMemory() {
        hub.publish(run, chunks(1, 4));
        hub.publish(new RunRef("run-2"), chunks(1, 1));
        hub.publish(
                run,
                List.of(
                        new LoggedChunk(5, "TEXT_MESSAGE_END", "{}"),
                        new LoggedChunk(6, "RUN_FINISHED", "{}")));
        assertThat(hub.recentAfter(run, 4)).isEmpty();
        assertThat(hub.keptRuns()).isEqualTo(1);
        hub.publish(new RunRef("run-2"), List.of(new LoggedChunk(2, "RUN_ERROR", "{}")));
        assertThat(hub.keptRuns()).isZero();
    }

    @Test
    void aDriverStoppingWithoutATerminalChunkDropsTheRunsChunksAndWakesItsReaders()
            throws InterruptedException {
        hub.publish(run, chunks(1, 4));
        try (RunEventHub.Waiter waiter = hub.register(run)) {
            hub.driverStopped(run);
            long start = System.nanoTime();
            waiter.await(5_000);
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1_000);
        }
        assertThat(hub.recentAfter(run, 0)).isEmpty();
        assertThat(hub.keptRuns()).isZero();
    }

    @Test
    void memoryKeepsTheChunksOfAtMostAFixedNumberOfRuns() {
        for (int i = 0; i < RunEventHub.RECENT_RUNS + 10; i++) {
            hub.publish(new RunRef("run-" + i), chunks(1, 2));
        }
        assertThat(hub.keptRuns()).isEqualTo(RunEventHub.RECENT_RUNS);
    }

    @Test
    void aPublishWakesTheRunsRegisteredReadersAtOnce() throws InterruptedException {
        try (RunEventHub.Waiter waiter = hub.register(run)) {
            hub.publish(run, chunks(1, 1));
            long start = System.nanoTime();
            waiter.await(5_000);
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1_000);
        }
    }

    private static List<LoggedChunk> bigChunks(long from, long to, int chars) {
        String json = "{\"delta\":\"" + "x".repeat(chars) + "\"}";
        return LongStream.rangeClosed(from, to)
                .mapToObj(s -> new LoggedChunk(s, "TEXT_MESSAGE_CONTENT", json))
                .toList();
    }

    @Test
    void hugeLinesNeverGrowARunsMemoryPastItsCharacterBound() {
        // 40 chunks of 100 000 characters: 4 M characters appended, at most 1 Mi kept
        for (long s = 1; s <= 40; s += 4) {
            hub.publish(run, bigChunks(s, s + 3, 100_000));
        }
        assertThat(hub.keptChars()).isLessThanOrEqualTo(RunEventHub.RECENT_CHARS_PER_RUN);
        assertThat(hub.recentAfter(run, 39))
                .as("the newest chunks are still served from memory")
                .hasValueSatisfying(c -> assertThat(seqs(c)).containsExactly(40L));
        assertThat(hub.recentAfter(run, 1))
                .as("the oldest were dropped: the table answers")
                .isEmpty();
    }

    @Test
    void aChunkLargerThanTheBoundIsNotKeptAndLeavesNoGap() {
        hub.publish(run, chunks(1, 2));
        hub.publish(run, bigChunks(3, 3, RunEventHub.RECENT_CHARS_PER_RUN + 1));
        hub.publish(run, chunks(4, 5));
        assertThat(hub.recentAfter(run, 2)).as("3 is not in memory").isEmpty();
        assertThat(hub.recentAfter(run, 3))
                .hasValueSatisfying(c -> assertThat(seqs(c)).containsExactly(4L, 5L));
        assertThat(hub.keptChars()).isEqualTo(4);
    }

    @Test
    void manyRunsWithBigChunksStayUnderTheTotalCharacterBound() {
        for (int i = 0; i < 100; i++) {
            hub.publish(new RunRef("run-" + i), bigChunks(1, 2, 400_000));
        }
        assertThat(hub.keptChars()).isLessThanOrEqualTo(RunEventHub.RECENT_CHARS_TOTAL);
        assertThat(hub.recentAfter(new RunRef("run-99"), 0))
                .as("the most recent run is kept")
                .isPresent();
        assertThat(hub.recentAfter(new RunRef("run-0"), 0))
                .as("the least recent was dropped")
                .isEmpty();
        hub.publish(new RunRef("run-99"), List.of(new LoggedChunk(3, "RUN_FINISHED", "{}")));
        assertThat(hub.keptChars())
                .as("a terminal chunk gives its run's characters back")
                .isLessThanOrEqualTo(RunEventHub.RECENT_CHARS_TOTAL - 800_000);
    }
}
