package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BodyLimitFilterTest {

    @Test
    void aContentLengthPastTwoGibibytesIsReadAsALongSoItIsRefusedAtOnce() {
        assertThat(BodyLimitFilter.declaredLength("99999999999")).isEqualTo(99_999_999_999L);
        assertThat(BodyLimitFilter.declaredLength("99999999999999999999999"))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void anOrdinaryOrRepeatedLengthIsItsNumber() {
        assertThat(BodyLimitFilter.declaredLength("17")).isEqualTo(17);
        assertThat(BodyLimitFilter.declaredLength("17, 17")).isEqualTo(17);
    }

    @Test
    void anAbsentOrGarbledLengthIsUnknownAndLeftToTheContainer() {
        assertThat(BodyLimitFilter.declaredLength(null)).isEqualTo(-1);
        assertThat(BodyLimitFilter.declaredLength("")).isEqualTo(-1);
        assertThat(BodyLimitFilter.declaredLength("-5")).isEqualTo(-1);
        assertThat(BodyLimitFilter.declaredLength("0x10")).isEqualTo(-1);
    }
}
