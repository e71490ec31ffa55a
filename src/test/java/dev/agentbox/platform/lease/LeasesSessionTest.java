package dev.agentbox.platform.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Leases taken under this server's session: recorded with it, lost with it (TK-15). */
class LeasesSessionTest {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration RENEW = Duration.ofSeconds(2);

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final SettableSession session = new SettableSession();
    private final Leases leases =
            new Leases(store, Clock.systemUTC(), "node-a", scheduler, session);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aLeaseTakenUnderASessionCarriesItsKeyAndIsLostTheMomentTheSessionBreaks() {
        session.key = OptionalLong.of(11);
        HeldLease held = leases.acquire("run-driver:r1", TTL, RENEW, Duration.ZERO).orElseThrow();
        assertThat(store.find("run-driver:r1").orElseThrow().holderSession()).hasValue(11);
        assertThat(held.lost()).isFalse();

        session.key = OptionalLong.empty();
        assertThat(held.lost()).as("broken session").isTrue();

        session.key = OptionalLong.of(12);
        assertThat(held.lost()).as("a new session does not revive a lease of the old one").isTrue();
    }

    @Test
    void aLeaseTakenWithoutASessionOnlyExpires() {
        HeldLease held = leases.acquire("run-driver:r2", TTL, RENEW, Duration.ZERO).orElseThrow();
        assertThat(store.find("run-driver:r2").orElseThrow().holderSession()).isEmpty();
        session.key = OptionalLong.of(13);
        session.key = OptionalLong.empty();
        assertThat(held.lost()).isFalse();
    }

    @Test
    void aGoneSessionsLeaseIsTakenOnceUnderTheTakersOwnSession() {
        store.tryAcquire(
                "run-driver:r3", "node-b/x", OptionalLong.of(99), java.time.Instant.now(), TTL);
        session.key = OptionalLong.of(14);

        HeldLease taken = leases.takeFromGoneSession("run-driver:r3", 99, TTL, RENEW).orElseThrow();
        assertThat(store.find("run-driver:r3").orElseThrow().holderSession()).hasValue(14);
        assertThat(store.find("run-driver:r3").orElseThrow().holder()).startsWith("node-a/");
        assertThat(taken.lost()).isFalse();
        assertThat(leases.takeFromGoneSession("run-driver:r3", 99, TTL, RENEW))
                .as("taken already")
                .isEmpty();
    }

    /** This server's session, set by the test. */
    static final class SettableSession extends SessionLiveness {
        volatile OptionalLong key = OptionalLong.empty();

        @Override
        public OptionalLong currentSession() {
            return key;
        }

        @Override
        public boolean holds(long k) {
            OptionalLong now = key;
            return now.isPresent() && now.getAsLong() == k;
        }
    }
}
