package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** RN-04: file events are coalesced per path and bounded per second and per run. */
class RunFileEventsTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final RunFileEvents events = new RunFileEvents(nanos::get);
    private final ChunkFactory chunks = new ChunkFactory("r", "t", () -> 0L);

    private void advanceMs(long ms) {
        nanos.addAndGet(ms * 1_000_000);
    }

    private static List<String> summary(List<JsonObject> out) {
        return out.stream()
                .map(
                        c -> {
                            JsonObject v = c.getJsonObject("value");
                            return v.getString("kind")
                                    + " "
                                    + v.getString("path")
                                    + (v.containsKey("dropped")
                                            ? " dropped=" + v.getInt("dropped")
                                            : "");
                        })
                .toList();
    }

    @Test
    void eventsAreFileChangedServiceChunksWithPathAndKind() {
        events.offer("/workspace/a.txt", "create");
        advanceMs(RunFileEvents.WINDOW_MS);
        List<JsonObject> out = events.drain(chunks, false);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getString("type")).isEqualTo("CUSTOM");
        assertThat(out.get(0).getString("name")).isEqualTo("file.changed");
        assertThat(Chunks.isServiceChunk(out.get(0))).isTrue();
        assertThat(summary(out)).containsExactly("create /workspace/a.txt");
    }

    @Test
    void nothingIsDrainedWithinTheCoalescingWindowUnlessTheAgentExited() {
        events.offer("/workspace/a", "change");
        advanceMs(RunFileEvents.WINDOW_MS - 1);
        assertThat(events.drain(chunks, false)).isEmpty();
        assertThat(summary(events.drain(chunks, true))).containsExactly("change /workspace/a");
    }

    @Test
    void changesOfOnePathWithinTheWindowAreMergedToTheirNetEffect() {
        events.offer("/workspace/new", "create");
        events.offer("/workspace/new", "change");
        events.offer("/workspace/new", "change");
        events.offer("/workspace/tmp", "create");
        events.offer("/workspace/tmp", "delete");
        events.offer("/workspace/replaced", "delete");
        events.offer("/workspace/replaced", "create");
        events.offer("/workspace/gone", "change");
        events.offer("/workspace/gone", "delete");
        advanceMs(RunFileEvents.WINDOW_MS);
        assertThat(summary(events.drain(chunks, false)))
                .containsExactly(
                        "create /workspace/new",
                        "change /workspace/replaced",
                        "delete /workspace/gone");
    }

    @Test
    void aStormIsCappedPerSecondAndWhatWasDroppedIsCounted() {
        for (int i = 0; i < 10_000; i++) {
            events.offer("/workspace/node_modules/f" + i, "create");
        }
        advanceMs(RunFileEvents.WINDOW_MS);
        List<JsonObject> first = events.drain(chunks, false);
        assertThat(first).hasSize(RunFileEvents.PER_SECOND);

        advanceMs(RunFileEvents.SUMMARY_EVERY_MS);
        for (int i = 0; i < 10; i++) {
            events.offer("/workspace/later" + i, "create");
        }
        List<JsonObject> next = events.drain(chunks, false);
        assertThat(summary(next))
                .hasSize(11)
                .last()
                .isEqualTo("change /workspace dropped=" + (10_000 - RunFileEvents.PER_SECOND));
    }

    @Test
    void aRunGetsAtMostItsCapOfEventsThenOnlyTheDroppedCount() {
        int emitted = 0;
        int dropped = 0;
        int summaries = 0;
        for (int round = 0; round <= 200; round++) {
            if (round < 200) {
                for (int i = 0; i < RunFileEvents.PER_SECOND; i++) {
                    events.offer("/workspace/r" + round + "/" + i, "create");
                }
            }
            advanceMs(1000);
            for (JsonObject c : events.drain(chunks, round == 200)) {
                JsonObject v = c.getJsonObject("value");
                if (v.containsKey("dropped")) {
                    dropped += v.getInt("dropped");
                    summaries++;
                } else {
                    emitted++;
                }
            }
        }
        assertThat(emitted).isEqualTo(RunFileEvents.PER_RUN);
        assertThat(dropped).isEqualTo(200 * RunFileEvents.PER_SECOND - RunFileEvents.PER_RUN);
        assertThat(summaries).as("at most one every 5 s, and one at the exit").isBetween(1, 21);
    }

    @Test
    void onceSealedADrainReportsOnlyTheSealedChangesAndLaterOnesWaitForTheNextSeal() {
        events.offer("/workspace/a", "create");
        advanceMs(RunFileEvents.WINDOW_MS);
        assertThat(events.due()).isTrue();
        events.seal();
        events.offer("/workspace/b", "create");
        events.offer("/workspace/a", "delete");

        assertThat(summary(events.drain(chunks, false))).containsExactly("create /workspace/a");

        advanceMs(RunFileEvents.WINDOW_MS);
        assertThat(events.due()).isTrue();
        events.seal();
        assertThat(summary(events.drain(chunks, false)))
                .containsExactly("create /workspace/b", "delete /workspace/a");
        assertThat(events.due()).isFalse();
    }

    @Test
    void theLastDrainReportsSealedAndWaitingChangesMerged() {
        events.offer("/workspace/a", "create");
        advanceMs(RunFileEvents.WINDOW_MS);
        events.seal();
        events.offer("/workspace/a", "delete");
        events.offer("/workspace/b", "change");

        assertThat(summary(events.drain(chunks, true))).containsExactly("change /workspace/b");
    }

    /**
     * AL-09: a drain writes no more than the room the driver has before the agent's next line (a
     * replay passes over at most 64 service chunks in a row): the rest waits in order, merged per
     * path, and is not dropped.
     */
    @Test
    void aDrainWritesAtMostItsRoomAndTheRestWaitsForTheNextLine() {
        for (int i = 0; i < 30; i++) {
            events.offer("/workspace/f" + i, "create");
        }
        advanceMs(1000);
        assertThat(summary(events.drain(chunks, false, 11)))
                .as("one place kept for a summary")
                .hasSize(10)
                .first()
                .isEqualTo("create /workspace/f0");
        advanceMs(1000);
        assertThat(events.drain(chunks, false, 1)).as("room for a summary only").isEmpty();
        events.offer("/workspace/f10", "change"); // merged with the waiting create
        advanceMs(1000);
        List<String> next = summary(events.drain(chunks, false, 65));
        assertThat(next).hasSize(20);
        assertThat(next.get(0)).isEqualTo("create /workspace/f10");
        assertThat(next.get(19)).isEqualTo("create /workspace/f29");
    }

    /**
     * AL-09: at the agent's exit what does not fit is dropped, and counted when a place is left.
     */
    @Test
    void theLastDrainDropsWhatDoesNotFitAndCountsIt() {
        for (int i = 0; i < 10; i++) {
            events.offer("/workspace/g" + i, "create");
        }
        advanceMs(1000);
        assertThat(summary(events.drain(chunks, true, 4)))
                .containsExactly(
                        "create /workspace/g0",
                        "create /workspace/g1",
                        "create /workspace/g2",
                        "change /workspace dropped=7");
    }
}
