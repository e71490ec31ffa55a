package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceException;
import org.junit.jupiter.api.Test;

/** A touch that lost to a concurrent write of the same record is not an error; anything else is. */
class LostTouchTest {

    @Test
    void anOptimisticLockFailureAnywhereInTheCauseChainIsALostTouch() {
        assertThat(SandboxService.lostToConcurrentWrite(new OptimisticLockException("stale"))).isTrue();
        assertThat(SandboxService.lostToConcurrentWrite(
                new RuntimeException("tx", new PersistenceException("flush", new OptimisticLockException("stale"))))).isTrue();
    }

    @Test
    void otherFailuresAreNot() {
        assertThat(SandboxService.lostToConcurrentWrite(new PersistenceException("connection refused"))).isFalse();
        assertThat(SandboxService.lostToConcurrentWrite(new IllegalStateException("x"))).isFalse();
    }
}
