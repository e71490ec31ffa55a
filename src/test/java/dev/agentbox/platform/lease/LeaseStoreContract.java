package dev.agentbox.platform.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link LeaseStore} must have; run against each implementation. */
public abstract class LeaseStoreContract {

    static final Duration TTL = Duration.ofSeconds(10);
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    protected abstract LeaseStore store();

    private final String name = LeaseNames.sandbox(UUID.randomUUID().toString());

    @Test
    void heldNamesListsOnlyUnexpiredLeasesWithThePrefix() {
        String prefix = "held-" + UUID.randomUUID() + ":";
        store().tryAcquire(prefix + "live", "a", T0, TTL);
        store().tryAcquire(prefix + "expired", "a", T0.minus(TTL), TTL);
        store().tryAcquire(prefix + "released", "a", T0, TTL);
        store().release(prefix + "released", "a", T0);
        store().tryAcquire("other-" + UUID.randomUUID(), "a", T0, TTL);
        // '_' is a LIKE wildcard: a prefix containing it must not match other names.
        store().tryAcquire(prefix.replace("-", "_") + "look-alike", "a", T0, TTL);

        assertThat(store().heldNames(prefix, T0)).containsExactly(prefix + "live");
        assertThat(store().heldNames(prefix, T0.plus(TTL))).isEmpty();
    }

    @Test
    void findAllReadsEveryTakenLeaseOfTheNamesAtOnce() {
        String prefix = "all-" + UUID.randomUUID() + ":";
        store().tryAcquire(prefix + "a", "a", T0, TTL);
        store().tryAcquire(prefix + "b", "b", T0.minus(TTL), TTL);
        store().tryAcquire(prefix + "c", "c", T0, TTL);
        store().release(prefix + "c", "c", T0);

        var found =
                store().findAll(List.of(prefix + "a", prefix + "b", prefix + "c", prefix + "x"));
        assertThat(found).containsOnlyKeys(prefix + "a", prefix + "b", prefix + "c");
        assertThat(found.get(prefix + "a")).isEqualTo(store().find(prefix + "a").orElseThrow());
        assertThat(found.get(prefix + "b").heldAt(T0)).isFalse();
        assertThat(found.get(prefix + "c").released()).isTrue();
        assertThat(store().findAll(List.of())).isEmpty();
    }

    @Test
    void aFreeLeaseIsTakenUntilNowPlusTtl() {
        assertThat(store().tryAcquire(name, "a", T0, TTL)).isTrue();
        assertThat(store().find(name)).contains(new Lease(name, "a", T0.plus(TTL)));
    }

    @Test
    void aHeldLeaseIsRefusedToOthersUntilTheInstantItExpires() {
        store().tryAcquire(name, "a", T0, TTL);
        assertThat(store().tryAcquire(name, "b", T0.plus(TTL).minusMillis(1), TTL)).isFalse();
        assertThat(store().find(name).orElseThrow().holder()).isEqualTo("a");
        assertThat(store().tryAcquire(name, "b", T0.plus(TTL), TTL)).isTrue();
        assertThat(store().find(name).orElseThrow().holder()).isEqualTo("b");
    }

    @Test
    void theHolderMayTakeItsOwnLeaseAgainAndExtendIt() {
        store().tryAcquire(name, "a", T0, TTL);
        assertThat(store().tryAcquire(name, "a", T0.plusSeconds(5), TTL)).isTrue();
        assertThat(store().find(name).orElseThrow().expiresAt()).isEqualTo(T0.plusSeconds(15));
    }

    @Test
    void renewExtendsOnlyAnUnexpiredLeaseOfTheHolder() {
        store().tryAcquire(name, "a", T0, TTL);
        assertThat(store().renew(name, "a", T0.plusSeconds(9), TTL)).isTrue();
        assertThat(store().find(name).orElseThrow().expiresAt()).isEqualTo(T0.plusSeconds(19));
        assertThat(store().renew(name, "b", T0.plusSeconds(10), TTL)).isFalse();
        assertThat(store().renew(name, "a", T0.plusSeconds(19), TTL))
                .as("expired: lost, not renewed")
                .isFalse();
        assertThat(store().renew("never-taken-" + name, "a", T0, TTL)).isFalse();
    }

    @Test
    void aRenewalAfterAnotherHolderTookOverFails() {
        store().tryAcquire(name, "a", T0, TTL);
        store().tryAcquire(name, "b", T0.plus(TTL), TTL);
        assertThat(store().renew(name, "a", T0.plus(TTL).plusSeconds(1), TTL)).isFalse();
        assertThat(store().find(name).orElseThrow().holder()).isEqualTo("b");
    }

    @Test
    void releaseFreesTheLeaseOnlyForItsHolder() {
        store().tryAcquire(name, "a", T0, TTL);
        store().release(name, "b", T0.plusSeconds(1));
        assertThat(store().tryAcquire(name, "b", T0.plusSeconds(1), TTL)).isFalse();
        store().release(name, "a", T0.plusSeconds(1));
        assertThat(store().tryAcquire(name, "b", T0.plusSeconds(1), TTL)).isTrue();
    }

    @Test
    void theTakersSessionIsRecordedAndAReleaseClearsItAndMarksTheLeaseReleased() {
        store().tryAcquire(name, "a", OptionalLong.of(41), T0, TTL);
        assertThat(store().find(name).orElseThrow().holderSession()).hasValue(41);
        assertThat(store().find(name).orElseThrow().released()).isFalse();

        store().release(name, "a", T0.plusSeconds(1));
        Lease released = store().find(name).orElseThrow();
        assertThat(released.holderSession()).isEmpty();
        assertThat(released.released()).isTrue();

        store().tryAcquire(name, "b", T0.plusSeconds(2), TTL);
        assertThat(store().find(name).orElseThrow().released())
                .as("taken again: no longer released")
                .isFalse();
    }

    @Test
    void aLeaseOfAGoneSessionIsTakenBeforeItExpiresButOnlyWhileThatSessionStillHoldsIt() {
        store().tryAcquire(name, "a", OptionalLong.of(7), T0, TTL);

        assertThat(store().takeFromGoneSession(name, "b", OptionalLong.of(8), 6, T0, TTL))
                .as("another session holds it")
                .isFalse();
        assertThat(
                        store().takeFromGoneSession(
                                        name, "b", OptionalLong.of(8), 7, T0.plusSeconds(1), TTL))
                .as("unexpired, but its session is gone")
                .isTrue();
        Lease taken = store().find(name).orElseThrow();
        assertThat(taken.holder()).isEqualTo("b");
        assertThat(taken.holderSession()).hasValue(8);
        assertThat(taken.expiresAt()).isEqualTo(T0.plusSeconds(1).plus(TTL));

        assertThat(
                        store().takeFromGoneSession(
                                        name, "c", OptionalLong.of(9), 7, T0.plusSeconds(2), TTL))
                .as("a second taker of the same gone session loses the compare-and-set")
                .isFalse();
        assertThat(store().renew(name, "a", T0.plusSeconds(2), TTL))
                .as("the old holder cannot renew")
                .isFalse();
    }

    @Test
    void aReleasedLeaseIsNeverTakenAsAGoneSessions() {
        store().tryAcquire(name, "a", OptionalLong.of(7), T0, TTL);
        store().release(name, "a", T0);
        assertThat(store().takeFromGoneSession(name, "b", OptionalLong.of(8), 7, T0, TTL))
                .isFalse();
    }

    @Test
    void forgettingAGoneSessionClearsOnlyThatSessionAndKeepsHolderAndExpiry() {
        store().tryAcquire(name, "a", OptionalLong.of(7), T0, TTL);
        store().forgetGoneSession(name, 6);
        assertThat(store().find(name).orElseThrow().holderSession()).hasValue(7);

        store().forgetGoneSession(name, 7);
        Lease forgotten = store().find(name).orElseThrow();
        assertThat(forgotten.holderSession()).isEmpty();
        assertThat(forgotten.holder()).isEqualTo("a");
        assertThat(forgotten.expiresAt()).isEqualTo(T0.plus(TTL));
        assertThat(store().takeFromGoneSession(name, "b", OptionalLong.of(8), 7, T0, TTL))
                .isFalse();
    }

    @Test
    void anUnknownLeaseIsAbsent() {
        assertThat(store().find(name)).isEmpty();
    }

    @Test
    void ofManyConcurrentFirstAcquisitionsExactlyOneWins() throws Exception {
        int contenders = 8;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                String holder = "h" + i;
                Callable<Boolean> attempt =
                        () -> {
                            start.await();
                            // A lost race on the first insert surfaces as an exception: retry once,
                            // as Leases does.
                            try {
                                return store().tryAcquire(name, holder, T0, TTL);
                            } catch (RuntimeException insertRace) {
                                return store().tryAcquire(name, holder, T0, TTL);
                            }
                        };
                results.add(pool.submit(attempt));
            }
            start.countDown();
            int winners = 0;
            for (Future<Boolean> r : results) {
                winners += r.get() ? 1 : 0;
            }
            assertThat(winners).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aGatedAcquisitionTakesTheNameOnlyWhenAdmitAgreesShownTheHeldNamesOfThePrefix() {
        String prefix = "gated-" + UUID.randomUUID() + ":";
        String gate = "gate-" + UUID.randomUUID();
        store().tryAcquire(prefix + "held", "a", T0, TTL);
        List<java.util.Set<String>> shown = new ArrayList<>();

        assertThat(gated(gate, prefix, prefix + "mine", "b", held -> shown.add(held) && false))
                .isEqualTo(LeaseStore.Gated.DECLINED);
        assertThat(shown).containsExactly(java.util.Set.of(prefix + "held"));
        assertThat(store().find(prefix + "mine")).isEmpty();

        assertThat(gated(gate, prefix, prefix + "mine", "b", held -> true))
                .isEqualTo(LeaseStore.Gated.TAKEN);
        assertThat(store().find(prefix + "mine"))
                .contains(new Lease(prefix + "mine", "b", T0.plus(TTL)));
        // The gate itself is never held, so it never counts as a held name of anything.
        assertThat(store().find(gate).map(l -> l.heldAt(T0)).orElse(false)).isFalse();
    }

    /** CQ-02: a refusal writes nothing. */
    @Test
    void aGatedAcquisitionWhoseAdmitThrowsWritesNothing() {
        String prefix = "gated-" + UUID.randomUUID() + ":";
        String gate = "gate-" + UUID.randomUUID();
        IllegalStateException refusal = new IllegalStateException("over quota");

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                gated(
                                        gate,
                                        prefix,
                                        prefix + "mine",
                                        "b",
                                        held -> {
                                            throw refusal;
                                        }))
                .isSameAs(refusal);
        assertThat(store().find(prefix + "mine")).isEmpty();
    }

    /** CQ-02: a gate still held as a lease by an older server is waited for, not overridden. */
    @Test
    void aGateHeldAsALeaseMakesAGatedAcquisitionWaitWithoutDeciding() {
        String prefix = "gated-" + UUID.randomUUID() + ":";
        String gate = "gate-" + UUID.randomUUID();
        store().tryAcquire(gate, "older-server", T0, TTL);
        boolean[] asked = {false};

        assertThat(gated(gate, prefix, prefix + "mine", "b", held -> asked[0] = true))
                .isEqualTo(LeaseStore.Gated.GATE_BUSY);
        assertThat(asked[0]).isFalse();
        assertThat(store().find(prefix + "mine")).isEmpty();

        store().release(gate, "older-server", T0);
        assertThat(gated(gate, prefix, prefix + "mine", "b", held -> true))
                .isEqualTo(LeaseStore.Gated.TAKEN);
    }

    /**
     * Eight takers race for three slots of one gate, each admitting itself while fewer than three
     * names are held: the gate serializes the decisions, so exactly three win.
     *
     * <p>CQ-02: the gate row's lock serializes the count and the take: 8 takers, 3 slots, exactly 3
     * win (in memory, Derby, PostgreSQL).
     */
    @Test
    void concurrentGatedAcquisitionsDecideOneAfterAnotherSoNoneOvershoots() throws Exception {
        int contenders = 8;
        int slots = 3;
        String prefix = "gated-" + UUID.randomUUID() + ":";
        String gate = "gate-" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<LeaseStore.Gated>> results = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                String item = prefix + i;
                Callable<LeaseStore.Gated> attempt =
                        () -> {
                            start.await();
                            java.util.function.Predicate<java.util.Set<String>> admit =
                                    held -> held.size() < slots;
                            // A lost race on a first insert surfaces as an exception: retry, as
                            // Leases does.
                            for (int tries = 0; ; tries++) {
                                try {
                                    return gated(gate, prefix, item, item, admit);
                                } catch (RuntimeException insertRace) {
                                    if (tries == 3) {
                                        throw insertRace;
                                    }
                                }
                            }
                        };
                results.add(pool.submit(attempt));
            }
            start.countDown();
            int taken = 0;
            for (Future<LeaseStore.Gated> r : results) {
                taken += r.get() == LeaseStore.Gated.TAKEN ? 1 : 0;
            }
            assertThat(taken).isEqualTo(slots);
            assertThat(store().heldNames(prefix, T0)).hasSize(slots);
        } finally {
            pool.shutdownNow();
        }
    }

    /** A gated acquisition at {@link #T0} for {@link #TTL}, without a session. */
    private LeaseStore.Gated gated(
            String gate,
            String prefix,
            String name,
            String holder,
            java.util.function.Predicate<java.util.Set<String>> admit) {
        return store().tryAcquireGated(
                        gate, prefix, name, holder, OptionalLong.empty(), T0, TTL, admit);
    }
}
