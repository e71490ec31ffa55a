package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Liveness of the reaper's timer: DOWN once no sweep has completed for three intervals. */
class ReaperFreshnessTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void beforeTheFirstSweepTheStartCountsForThreeIntervals() {
        assertThat(ReaperService.fresh(Optional.empty(), START, 60_000, START.plusSeconds(180)))
                .isTrue();
        assertThat(
                        ReaperService.fresh(
                                Optional.empty(),
                                START,
                                60_000,
                                START.plusSeconds(180).plusMillis(1)))
                .isFalse();
    }

    @Test
    void aCompletedSweepKeepsItFreshForThreeIntervalsFromItsEnd() {
        Instant swept = START.plusSeconds(600);
        assertThat(ReaperService.fresh(Optional.of(swept), START, 60_000, swept.plusSeconds(180)))
                .isTrue();
        assertThat(ReaperService.fresh(Optional.of(swept), START, 60_000, swept.plusSeconds(181)))
                .isFalse();
    }
}
