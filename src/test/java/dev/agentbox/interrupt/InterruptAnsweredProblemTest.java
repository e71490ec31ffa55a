package dev.agentbox.interrupt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a client sees of an interrupt that can no longer be answered (AP-05): an expired one is
 * {@code cancelled} with {@code cancelReason: "expired"} (docs/api.md, "Interrupts"): expiry
 * cancels.
 */
class InterruptAnsweredProblemTest {

    @Test
    void anExpiredInterruptIsShownCancelledWithExpiredAsTheReason() {
        ProblemException p = Interrupts.answered("i-1", InterruptStatus.EXPIRED);

        assertThat(p.code()).isEqualTo(ProblemCode.INTERRUPT_ANSWERED);
        assertThat(p.status()).isEqualTo(409);
        assertThat(p.extensions())
                .isEqualTo(Map.of("interruptStatus", "cancelled", "cancelReason", "expired"));
        assertThat(p.detail()).contains("cancelled (expired)").doesNotContain("is already expired");
    }

    @Test
    void aResolvedOrCancelledInterruptIsShownAsItsStatusWithoutAReason() {
        assertThat(Interrupts.answered("i-1", InterruptStatus.RESOLVED).extensions())
                .isEqualTo(Map.of("interruptStatus", "resolved"));
        assertThat(Interrupts.answered("i-1", InterruptStatus.CANCELLED).extensions())
                .isEqualTo(Map.of("interruptStatus", "cancelled"));
    }
}
