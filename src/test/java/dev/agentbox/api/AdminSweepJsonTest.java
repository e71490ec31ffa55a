package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.reaper.OrphanCollector;
import dev.agentbox.reaper.ReclaimOutcome;
import dev.agentbox.reaper.SweepOutcome;
import dev.agentbox.reaper.SweepResult;
import dev.agentbox.reaper.SweepResult.RunEntry;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdminSweepJsonTest {

    @Test
    void aReclaimFailedRunKeepsItsStatusAndExitCodeInTheSweepJson() {
        JsonObject run =
                runJson(
                        new RunEntry(
                                "tenant-a",
                                "run-a",
                                SweepOutcome.RECLAIM_FAILED,
                                Optional.of("completed"),
                                Optional.of(0),
                                Optional.of("Reclaiming sandbox k failed"),
                                Optional.of(ReclaimOutcome.DESTROY_FAILED)));

        assertThat(run.getString("outcome")).isEqualTo("reclaim-failed");
        assertThat(run.getString("status")).isEqualTo("completed");
        assertThat(run.getInt("exitCode")).isZero();
        assertThat(run.getString("reclaim")).isEqualTo("destroy-failed");
        assertThat(run.getString("error")).contains("Reclaiming sandbox k failed");
        assertThat(run.containsKey("terminalizedAnyway")).isFalse();
    }

    @Test
    void aBudgetExceededRunWhoseReclaimFailedSaysItWasTerminalizedAnyway() {
        JsonObject run =
                runJson(
                        new RunEntry(
                                "tenant-a",
                                "run-b",
                                SweepOutcome.RECLAIM_FAILED,
                                Optional.of("failed"),
                                Optional.of(0),
                                Optional.of("Reclaiming sandbox k failed"),
                                Optional.of(ReclaimOutcome.DESTROY_FAILED),
                                true));

        assertThat(run.getString("outcome")).isEqualTo("reclaim-failed");
        assertThat(run.getBoolean("terminalizedAnyway")).isTrue();
    }

    private static JsonObject runJson(RunEntry entry) {
        Map<SweepOutcome, Integer> outcomes = new EnumMap<>(SweepOutcome.class);
        for (SweepOutcome o : SweepOutcome.values()) {
            outcomes.put(o, o == SweepOutcome.RECLAIM_FAILED ? 1 : 0);
        }
        SweepResult result =
                new SweepResult(
                        Instant.EPOCH,
                        5,
                        1,
                        1,
                        outcomes,
                        List.of(entry),
                        List.of(),
                        OrphanCollector.Report.empty(),
                        Optional.empty());

        return AdminResource.sweepJson(result).getJsonArray("runs").getJsonObject(0);
    }
}
