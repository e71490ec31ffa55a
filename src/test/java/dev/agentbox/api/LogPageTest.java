package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LogPageTest {

    @Test
    void absentArgumentsMeanFromTheStartWithTheDefaultLimit() {
        assertThat(LogPage.parse(null, null)).isEqualTo(new LogPage(0, LogPage.DEFAULT_LIMIT));
        assertThat(LogPage.parse("", " ")).isEqualTo(new LogPage(0, LogPage.DEFAULT_LIMIT));
    }

    @Test
    void afterAndLimitInRangeAreTakenAsGiven() {
        assertThat(LogPage.parse("42", "1")).isEqualTo(new LogPage(42, 1));
        assertThat(LogPage.parse("0", String.valueOf(LogPage.MAX_LIMIT)))
                .isEqualTo(new LogPage(0, LogPage.MAX_LIMIT));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "1001", "99999999999999999999", "ten", "1.5", "0x10"})
    void aLimitOutOfRangeOrNotANumberIsABadRequestNamingIt(String limit) {
        assertThatThrownBy(() -> LogPage.parse(null, limit))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.status()).isEqualTo(400);
                            assertThat(p.extensions()).containsEntry("field", "limit");
                        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"-5", "abc", "99999999999999999999"})
    void anAfterThatIsNoOffsetIsABadRequestNamingIt(String after) {
        assertThatThrownBy(() -> LogPage.parse(after, null))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.status()).isEqualTo(400);
                            assertThat(p.extensions()).containsEntry("field", "after");
                        });
    }
}
