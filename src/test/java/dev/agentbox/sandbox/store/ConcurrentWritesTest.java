package dev.agentbox.sandbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceException;
import org.junit.jupiter.api.Test;

/** A touch that lost to a concurrent write of the same record is not an error; anything else is. */
class ConcurrentWritesTest {

    @Test
    void anOptimisticLockFailureAnywhereInTheCauseChainIsALostTouch() {
        assertThat(ConcurrentWrites.lost(new OptimisticLockException("stale"))).isTrue();
        assertThat(
                        ConcurrentWrites.lost(
                                new RuntimeException(
                                        "tx",
                                        new PersistenceException(
                                                "flush", new OptimisticLockException("stale")))))
                .isTrue();
    }

    @Test
    void otherFailuresAreNot() {
        assertThat(ConcurrentWrites.lost(new PersistenceException("connection refused"))).isFalse();
        assertThat(ConcurrentWrites.lost(new IllegalStateException("x"))).isFalse();
    }
}
