package dev.agentbox.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-server quotas (processes, streams, execs): counting, races for the last slot, release on
 * every path.
 */
class ServerQuotasTest {

    private final TenantQuotas quotas =
            new TenantQuotas(
                    QuotaLimits.of(
                            Map.of(Quota.STREAMS, 5, Quota.PROCESSES, 2, Quota.CONCURRENT_EXECS, 1),
                            Map.of(
                                    "big",
                                    Map.of(Quota.STREAMS, 50),
                                    "free",
                                    Map.of(Quota.STREAMS, 0))),
                    null);
    private final ExecutorService pool = Executors.newFixedThreadPool(32);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void thirtyTwoThreadsRacingForFiveSlotsAdmitExactlyFive() throws Exception {
        CyclicBarrier start = new CyclicBarrier(32);
        ConcurrentLinkedQueue<Slot> granted = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<QuotaExceededException> refused = new ConcurrentLinkedQueue<>();
        List<Future<?>> all = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            all.add(
                    pool.submit(
                            () -> {
                                start.await();
                                try {
                                    granted.add(quotas.acquire("alpha", Quota.STREAMS));
                                } catch (QuotaExceededException e) {
                                    refused.add(e);
                                }
                                return null;
                            }));
        }
        for (Future<?> f : all) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(granted).hasSize(5);
        assertThat(refused)
                .hasSize(27)
                .allSatisfy(
                        e -> {
                            assertThat(e.status()).isEqualTo(429);
                            assertThat(e.code()).isEqualTo(ProblemCode.QUOTA_EXCEEDED);
                            assertThat(e.extensions())
                                    .containsEntry("quota", "streams")
                                    .containsEntry("limit", 5)
                                    .containsEntry("scope", "server");
                            assertThat(e.retryAfterSeconds()).hasValue(5);
                        });
        assertThat(quotas.held("alpha", Quota.STREAMS)).isEqualTo(5);
        granted.forEach(Slot::close);
        assertThat(quotas.held("alpha", Quota.STREAMS)).isZero();
    }

    @Test
    void slotsTakenAndReleasedConcurrentlyNeverLeakNorExceedTheLimit() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        List<Future<?>> all = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            all.add(
                    pool.submit(
                            () -> {
                                for (int i = 0; i < 2_000; i++) {
                                    try (Slot slot = quotas.acquire("alpha", Quota.STREAMS)) {
                                        maxInside.accumulateAndGet(
                                                inside.incrementAndGet(), Math::max);
                                        inside.decrementAndGet();
                                    } catch (QuotaExceededException busy) {
                                        // another thread holds the slot: fine, try again
                                    }
                                }
                                return null;
                            }));
        }
        for (Future<?> f : all) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertThat(maxInside.get()).isLessThanOrEqualTo(5);
        assertThat(quotas.held("alpha", Quota.STREAMS)).isZero();
    }

    @Test
    void aClosedSlotIsFreeAgainAndClosingItTwiceReleasesOnlyOnce() {
        Slot first = quotas.acquire("alpha", Quota.CONCURRENT_EXECS);
        assertThatThrownBy(() -> quotas.acquire("alpha", Quota.CONCURRENT_EXECS))
                .isInstanceOf(QuotaExceededException.class);
        first.close();
        Slot second = quotas.acquire("alpha", Quota.CONCURRENT_EXECS);
        first.close(); // a second close of a released slot must not free the slot someone else
        // now holds
        assertThatThrownBy(() -> quotas.acquire("alpha", Quota.CONCURRENT_EXECS))
                .isInstanceOf(QuotaExceededException.class);
        second.close();
        assertThat(quotas.held("alpha", Quota.CONCURRENT_EXECS)).isZero();
    }

    @Test
    void aTenantAtItsLimitDoesNotCountAgainstAnotherTenant() {
        List<Slot> alpha = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            alpha.add(quotas.acquire("alpha", Quota.STREAMS));
        }
        assertThatThrownBy(() -> quotas.acquire("alpha", Quota.STREAMS))
                .isInstanceOf(QuotaExceededException.class);
        try (Slot beta = quotas.acquire("beta", Quota.STREAMS)) {
            assertThat(quotas.held("beta", Quota.STREAMS)).isEqualTo(1);
        }
        alpha.forEach(Slot::close);
    }

    @Test
    void aTenantOverrideReplacesTheDefaultAndZeroMeansNoLimit() {
        List<Slot> held = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            held.add(quotas.acquire("big", Quota.STREAMS));
        }
        assertThatThrownBy(() -> quotas.acquire("big", Quota.STREAMS))
                .isInstanceOfSatisfying(
                        QuotaExceededException.class, e -> assertThat(e.limit()).isEqualTo(50));
        for (int i = 0; i < 500; i++) {
            held.add(quotas.acquire("free", Quota.STREAMS));
        }
        assertThat(quotas.held("free", Quota.STREAMS))
                .isZero(); // nothing is counted without a limit
        held.forEach(Slot::close);
        assertThat(quotas.held("big", Quota.STREAMS)).isZero();
    }

    @Test
    void holdUntilReleasesTheSlotWhenStartingFails() {
        assertThatThrownBy(
                        () ->
                                quotas.holdUntil(
                                        "alpha",
                                        Quota.PROCESSES,
                                        () -> {
                                            throw new IllegalStateException("spawn failed");
                                        },
                                        started -> CompletableFuture.completedFuture(null)))
                .hasMessage("spawn failed");
        assertThat(quotas.held("alpha", Quota.PROCESSES)).isZero();
    }

    @Test
    void holdUntilKeepsTheSlotUntilTheStartedThingEndsThenFreesIt() {
        CompletableFuture<Integer> exit1 = new CompletableFuture<>();
        CompletableFuture<Integer> exit2 = new CompletableFuture<>();
        quotas.holdUntil("alpha", Quota.PROCESSES, () -> exit1, f -> f);
        quotas.holdUntil("alpha", Quota.PROCESSES, () -> exit2, f -> f);
        assertThatThrownBy(
                        () ->
                                quotas.holdUntil(
                                        "alpha", Quota.PROCESSES, CompletableFuture::new, f -> f))
                .isInstanceOfSatisfying(
                        QuotaExceededException.class,
                        e ->
                                assertThat(e.extensions())
                                        .containsEntry("quota", "processes")
                                        .containsEntry("limit", 2));
        exit1.completeExceptionally(
                new IllegalStateException("killed")); // a failed end frees the slot too
        assertThat(quotas.held("alpha", Quota.PROCESSES)).isEqualTo(1);
        exit2.complete(0);
        assertThat(quotas.held("alpha", Quota.PROCESSES)).isZero();
    }

    @Test
    void aNegativeLimitIsAConfigurationError() {
        assertThatThrownBy(() -> QuotaLimits.of(Map.of(Quota.STREAMS, -1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agentbox.quotas.max-streams");
        QuotaLimits limits = QuotaLimits.of(Map.of(), Map.of("alpha", Map.of(Quota.PROCESSES, -3)));
        assertThatThrownBy(() -> limits.limit("alpha", Quota.PROCESSES))
                .hasMessageContaining("agentbox.quotas.tenant.alpha.max-processes");
    }

    @Test
    void aClusterQuotaCannotBeTakenAsAServerSlot() {
        assertThatThrownBy(() -> quotas.acquire("alpha", Quota.SANDBOXES))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
