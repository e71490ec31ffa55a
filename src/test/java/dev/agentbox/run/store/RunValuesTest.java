package dev.agentbox.run.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The value types of the run stores: statuses, errors and references. */
class RunValuesTest {

    @Test
    void statusesRoundTripTheirWireNames() {
        assertThat(Arrays.stream(RunStatus.values()).map(RunStatus::wireName))
                .containsExactly("running", "interrupted", "completed", "failed", "aborted");
        for (RunStatus s : RunStatus.values()) {
            assertThat(RunStatus.parse(s.wireName())).isEqualTo(s);
        }
    }

    @Test
    void anUnknownStatusIsRejected() {
        for (String unknown : new String[] {"paused", "RUNNING", "Completed", "", " running"}) {
            assertThatThrownBy(() -> RunStatus.parse(unknown))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> RunStatus.parse(null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyCompletedFailedAndAbortedAreTerminal() {
        assertThat(Arrays.stream(RunStatus.values()).filter(RunStatus::isTerminal))
                .containsExactly(RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.ABORTED);
    }

    @Test
    void anErrorMessageIsCutToItsColumnAndACodeIsBounded() {
        assertThat(RunError.of("m".repeat(RunError.MAX_MESSAGE + 1)).message())
                .hasSize(RunError.MAX_MESSAGE);
        assertThat(RunError.of("m", "c").code()).contains("c");
        assertThat(RunError.of("m").code()).isEmpty();
        assertThatThrownBy(() -> new RunError("m", Optional.of("c".repeat(RunError.MAX_CODE + 1))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRunRefIsNeverEmptyOrWiderThanItsColumn() {
        assertThatThrownBy(() -> new RunRef("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RunRef("x".repeat(RunRef.MAX_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RunRef(null)).isInstanceOf(NullPointerException.class);
    }
}
