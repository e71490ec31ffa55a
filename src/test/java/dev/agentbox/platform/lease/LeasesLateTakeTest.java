package dev.agentbox.platform.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A take whose statement returned after the lease it wrote had run out — on PostgreSQL, one that
 * waited on the row lock of a server frozen mid-transaction — is not a held lease, and a renewal
 * that did the same loses it (TK-17). The store here lets the settable clock jump while a take is
 * in flight; {@link LeasesPostgresTest} makes the same wait with a real lock.
 */
class LeasesLateTakeTest {

    private static final Duration TTL = Duration.ofSeconds(3);
    private static final Duration LOCK_WAIT = Duration.ofSeconds(29);
    private static final String NAME = "run-driver:r1";

    private final SettableClock clock = new SettableClock(Instant.parse("2026-12-05T07:40:53Z"));
    private final LateStore store = new LateStore();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Leases leases = new Leases(store, clock, "node-b", scheduler);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aTakeThatCameBackAfterItsTtlRanOutHoldsFromNowOn() {
        store.lateOnce = () -> clock.advance(LOCK_WAIT);

        HeldLease held = leases.acquire(NAME, TTL, Duration.ZERO).orElseThrow();

        Lease row = store.find(NAME).orElseThrow();
        assertThat(row.holder()).startsWith("node-b/");
        assertThat(row.heldAt(clock.instant())).as("held now, not only 29 s ago").isTrue();
        assertThat(row.expiresAt()).isEqualTo(clock.instant().plus(TTL));
        assertThat(held.lost()).isFalse();
    }

    @Test
    void aTakeThatCameBackAfterAnotherServerTookTheRunOutLeaseIsNotHeld() {
        store.lateOnce =
                () -> {
                    clock.advance(LOCK_WAIT);
                    // Waiting on the same lock with a later instant, it found ours run out.
                    assertThat(store.tryAcquire(NAME, "node-c/1", clock.instant(), TTL)).isTrue();
                };

        assertThat(leases.acquire(NAME, TTL, Duration.ZERO)).isEmpty();
        assertThat(store.find(NAME).orElseThrow().holder()).isEqualTo("node-c/1");
    }

    @Test
    void aGatedTakeThatCameBackTooLateIsDecidedAgainAdmissionIncluded() {
        AtomicInteger decisions = new AtomicInteger();
        Predicate<Set<String>> admit = held -> decisions.incrementAndGet() > 0 && held.isEmpty();
        store.lateOnce =
                () -> {
                    clock.advance(LOCK_WAIT);
                    store.tryAcquire("run-driver:r2", "node-c/1", clock.instant(), TTL);
                };

        assertThat(gated(admit, IllegalStateException::new))
                .as("another server's lease of the prefix, taken meanwhile, counts now")
                .isEmpty();
        assertThat(decisions).hasValue(2);
        assertThat(store.find(NAME).orElseThrow().heldAt(clock.instant())).isFalse();
    }

    @Test
    void aGatedTakeThatKeepsComingBackTooLateEndsBusy() {
        store.lateAlways = () -> clock.advance(LOCK_WAIT);

        assertThatThrownBy(() -> gated(held -> true, () -> new IllegalStateException("busy")))
                .hasMessage("busy");
    }

    /** A gated take of {@link #NAME} under the prefix {@code run-driver:}, waiting for nothing. */
    private Optional<HeldLease> gated(
            Predicate<Set<String>> admit, Supplier<? extends RuntimeException> busy) {
        return leases.acquireGated("gate", "run-driver:", NAME, TTL, Duration.ZERO, admit, busy);
    }

    @Test
    void aGoneSessionsLeaseTakenTooLateIsOursOnlyWhileNobodyTookItSince() {
        store.tryAcquire(NAME, "node-a/1", OptionalLong.of(7), clock.instant(), TTL);
        store.lateOnce = () -> clock.advance(LOCK_WAIT);
        HeldLease held =
                leases.takeFromGoneSession(NAME, 7, TTL, Duration.ofSeconds(1)).orElseThrow();
        assertThat(store.find(NAME).orElseThrow().heldAt(clock.instant())).isTrue();
        held.close();

        store.tryAcquire("run-driver:r3", "node-a/1", OptionalLong.of(8), clock.instant(), TTL);
        store.lateOnce =
                () -> {
                    clock.advance(LOCK_WAIT);
                    store.tryAcquire("run-driver:r3", "node-c/1", clock.instant(), TTL);
                };
        assertThat(leases.takeFromGoneSession("run-driver:r3", 8, TTL, Duration.ofSeconds(1)))
                .isEmpty();
        assertThat(store.find("run-driver:r3").orElseThrow().holder()).isEqualTo("node-c/1");
    }

    @Test
    void aRenewalThatCameBackAfterTheLeaseRanOutLosesIt() {
        HeldLease held =
                leases.acquire(NAME, TTL, Duration.ofHours(1), Duration.ZERO).orElseThrow();
        held.renew();
        assertThat(held.lost()).isFalse();

        store.lateRenewalOnce = () -> clock.advance(LOCK_WAIT);
        held.renew();

        assertThat(held.lost()).as("its write expired before it returned").isTrue();
        assertThat(store.find(NAME).orElseThrow().heldAt(clock.instant())).isFalse();
    }

    @Test
    void aTakeThatReturnsInTimeCostsNoExtraRenewal() {
        store.countRenewalsOn = Thread.currentThread();
        leases.acquire(NAME, TTL, Duration.ZERO).orElseThrow();
        leases.acquireGated(
                        "gate",
                        "other:",
                        "other:1",
                        TTL,
                        Duration.ZERO,
                        held -> true,
                        IllegalStateException::new)
                .orElseThrow();

        assertThat(store.renewals).hasValue(0);
    }

    /**
     * The in-memory store, with something happening while a take's statement is in flight (its
     * gated take calls {@link #tryAcquire}, so it is late the same way).
     */
    private static final class LateStore extends InMemoryLeaseStore {

        volatile Runnable lateOnce;
        volatile Runnable lateAlways;
        volatile Runnable lateRenewalOnce;
        final AtomicInteger renewals = new AtomicInteger();

        /** Renewals are counted on this thread only: the held leases' own run on the scheduler. */
        volatile Thread countRenewalsOn;

        private void meanwhile() {
            Runnable once = lateOnce;
            lateOnce = null;
            if (once != null) {
                once.run();
            }
            if (lateAlways != null) {
                lateAlways.run();
            }
        }

        @Override
        public boolean tryAcquire(
                String name, String holder, OptionalLong session, Instant now, Duration ttl) {
            boolean taken = super.tryAcquire(name, holder, session, now, ttl);
            if (holder.startsWith("node-b/")) {
                meanwhile();
            }
            return taken;
        }

        @Override
        public boolean takeFromGoneSession(
                String name,
                String holder,
                OptionalLong session,
                long goneSession,
                Instant now,
                Duration ttl) {
            boolean taken = super.takeFromGoneSession(name, holder, session, goneSession, now, ttl);
            meanwhile();
            return taken;
        }

        @Override
        public boolean renew(String name, String holder, Instant now, Duration ttl) {
            if (Thread.currentThread() == countRenewalsOn) {
                renewals.incrementAndGet();
            }
            boolean renewed = super.renew(name, holder, now, ttl);
            Runnable late = lateRenewalOnce;
            lateRenewalOnce = null;
            if (late != null) {
                late.run();
            }
            return renewed;
        }
    }
}
