package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.JournalStalledException;
import dev.agentbox.run.store.RunFailure;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RunFailureTest {

    @Test
    void codesAreTheWireSpellingsOfDocsApi() {
        assertThat(Arrays.stream(RunFailure.values()).map(RunFailure::code))
                .containsExactly(
                        "agent-exit",
                        "agent-error",
                        "agent-lost",
                        "journal-stalled",
                        "journal-timeout",
                        "setup-failed",
                        "aborted",
                        "max-duration",
                        "replay-diverged",
                        "replay-thread-mismatch",
                        "budget-exceeded",
                        "tool-bridge-failed",
                        "secret-missing",
                        "internal-error");
    }

    @Test
    void codesSpelledBelowTheStoresAgreeWithRunFailure() {
        // The harness and the journal reader sit below run.store and cannot name the enum.
        assertThat(HarnessTranslator.AGENT_EXIT).isEqualTo(RunFailure.AGENT_EXIT.code());
        assertThat(HarnessTranslator.AGENT_ERROR).isEqualTo(RunFailure.AGENT_ERROR.code());
        assertThat(JournalStalledException.CODE).isEqualTo(RunFailure.JOURNAL_STALLED.code());
        assertThat(ReplayDivergedException.CODE).isEqualTo(RunFailure.REPLAY_DIVERGED.code());
    }

    @Test
    void aFailureMakesARunErrorCarryingItsCode() {
        assertThat(RunFailure.AGENT_LOST.error("gone").code()).contains("agent-lost");
        assertThat(RunFailure.AGENT_LOST.error("gone").message()).isEqualTo("gone");
    }

    /** CH-07: the service's own RUN_ERROR chunks always carry a code, even for a codeless error. */
    @Test
    void everyRunErrorTheServiceWritesCarriesACode() {
        dev.agentbox.run.harness.ChunkFactory chunks =
                new dev.agentbox.run.harness.ChunkFactory("r", "t", () -> 1L);
        jakarta.json.JsonObject aborted =
                RunAbort.terminalChunk(
                        chunks,
                        new dev.agentbox.run.store.RunError("gone", java.util.Optional.empty()));
        assertThat(aborted.getString("code")).isEqualTo(RunFailure.ABORTED.code());
        assertThat(RunAbort.terminalChunk(chunks, RunAbort.CANCELLED).getString("code"))
                .isEqualTo("aborted");
        assertThat(dev.agentbox.run.harness.AgUiSchema.problems(aborted)).isEmpty();
    }
}
