package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.sandbox.spi.JournalNames;
import org.junit.jupiter.api.Test;

class JournalIdTest {

    @Test
    void twoJournalsOfTheSameRunIdGetDifferentRandomNonces() {
        JournalId a = JournalId.random("run-1");
        JournalId b = JournalId.random("run-1");
        assertThat(a.nonce()).matches("[0-9a-f]{32}").isNotEqualTo(b.nonce());
        assertThat(a.nonce()).isNotEqualTo(JournalNames.nonce("run-1"));
    }

    @Test
    void theDerivedFallbackIsTheNonceComputedFromTheRunId() {
        assertThat(JournalId.derived("run-1"))
                .isEqualTo(new JournalId("run-1", JournalNames.nonce("run-1")));
    }

    @Test
    void anEmptyRunIdOrANonceOfAnotherShapeIsRejected() {
        String good = "0123456789abcdef0123456789abcdef";
        assertThatThrownBy(() -> new JournalId("", good))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JournalId(null, good))
                .isInstanceOf(IllegalArgumentException.class);
        for (String bad :
                new String[] {
                    null,
                    "",
                    good.toUpperCase(),
                    good.substring(1),
                    good + "0",
                    "g" + good.substring(1)
                }) {
            assertThatThrownBy(() -> new JournalId("r", bad))
                    .as(String.valueOf(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
