package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import org.junit.jupiter.api.Test;

class RunsResourceOffsetTest {

    @Test
    void aResumeOffsetIsOnlyDigitsSoANegativeOrPaddedOneCannotReplayForever() {
        assertThat(RunsResource.offset(null)).isZero();
        assertThat(RunsResource.offset("")).isZero();
        assertThat(RunsResource.offset("42")).isEqualTo(42);
        for (String bad :
                new String[] {"-5", "1\u0001", " 1", "abc", "18446744073709551616", "1e3"}) {
            assertThatThrownBy(() -> RunsResource.offset(bad))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            ProblemException.class, p -> assertThat(p.status()).isEqualTo(400));
        }
    }
}
