package dev.agentbox.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.PooledSandbox;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link PoolStore} must have; run on Derby and PostgreSQL. */
abstract class PoolStoreContract {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    protected abstract PoolStore store();

    /** Each test its own pool key, so tests share the database without seeing each other. */
    private final String pool = UUID.randomUUID().toString().replace("-", "").substring(0, 16);

    private PooledSandbox ready(String id, Instant at) {
        return new PooledSandbox(id, "docker", pool, at, "node-1");
    }

    private static String id() {
        return "ab-pool-" + UUID.randomUUID();
    }

    @Test
    void readySandboxesAreListedOldestFirstAndOnlyWhenYoungerThanTheCutoff() {
        String old = id(), mid = id(), young = id();
        store().add(ready(young, T0.plusSeconds(20)));
        store().add(ready(old, T0));
        store().add(ready(mid, T0.plusSeconds(10)));

        assertThat(store().ready(pool, T0.minusSeconds(1), 10))
                .extracting(PooledSandbox::providerSandboxId)
                .containsExactly(old, mid, young);
        assertThat(store().ready(pool, T0.plusSeconds(5), 10))
                .extracting(PooledSandbox::providerSandboxId)
                .containsExactly(mid, young);
        assertThat(store().ready(pool, T0.minusSeconds(1), 1)).hasSize(1);
        assertThat(store().countReady(pool, T0.plusSeconds(5))).isEqualTo(2);
        assertThat(store().ready("another-pool-key", T0.minusSeconds(1), 10)).isEmpty();
    }

    @Test
    void aClaimSucceedsOnceAndTheClaimedSandboxIsNoLongerReady() {
        String id = id();
        store().add(ready(id, T0));

        assertThat(store().claim(id, "key-1", T0.plusSeconds(1))).isTrue();
        assertThat(store().claim(id, "key-2", T0.plusSeconds(2))).isFalse();

        assertThat(store().ready(pool, T0.minusSeconds(1), 10)).isEmpty();
        assertThat(store().countReady(pool, T0.minusSeconds(1))).isZero();
        PooledSandbox row =
                store().all(1000).stream()
                        .filter(r -> r.providerSandboxId().equals(id))
                        .findFirst()
                        .orElseThrow();
        assertThat(row.state()).isEqualTo(PooledSandbox.State.CLAIMED);
        assertThat(row.claimedFor()).contains("key-1");
        assertThat(row.claimedAt()).contains(T0.plusSeconds(1));
        assertThat(row.createdBy()).isEqualTo("node-1");
    }

    @Test
    void concurrentClaimsOfOneSandboxHaveExactlyOneWinner() throws Exception {
        String id = id();
        store().add(ready(id, T0));
        int claimers = 8;
        ExecutorService pool8 = Executors.newFixedThreadPool(claimers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < claimers; i++) {
                String key = "key-" + i;
                results.add(
                        pool8.submit(
                                () -> {
                                    go.await();
                                    return store().claim(id, key, T0.plusSeconds(1));
                                }));
            }
            go.countDown();
            int won = 0;
            for (Future<Boolean> r : results) {
                won += r.get() ? 1 : 0;
            }
            assertThat(won).isEqualTo(1);
        } finally {
            pool8.shutdownNow();
        }
    }

    /**
     * WP-11: a claim takes the oldest ready sandbox younger than the maximum age and says CLAIMED.
     */
    @Test
    void claimOldestTakesTheOldestReadySandboxYoungerThanTheCutoffAndSaysItIsClaimed() {
        String tooOld = id(), old = id(), young = id();
        store().add(ready(young, T0.plusSeconds(2)));
        store().add(ready(tooOld, T0.minusSeconds(5)));
        store().add(ready(old, T0.plusSeconds(1)));

        PooledSandbox first =
                store().claimOldest(pool, T0, "key-1", T0.plusSeconds(3), 4).orElseThrow();
        assertThat(first.providerSandboxId()).isEqualTo(old);
        assertThat(first.state()).isEqualTo(PooledSandbox.State.CLAIMED);
        assertThat(first.claimedFor()).contains("key-1");
        assertThat(first.claimedAt()).contains(T0.plusSeconds(3));

        assertThat(store().claimOldest(pool, T0, "key-2", T0.plusSeconds(3), 4))
                .map(PooledSandbox::providerSandboxId)
                .contains(young);
        // Only the one older than the cutoff is left: never handed out.
        assertThat(store().claimOldest(pool, T0, "key-3", T0.plusSeconds(3), 4)).isEmpty();
    }

    /** WP-11: concurrent claims hand each ready sandbox out once. */
    @Test
    void concurrentClaimOldestCallsHandEachReadySandboxOutOnce() throws Exception {
        int rows = 3;
        int claimers = 8;
        for (int i = 0; i < rows; i++) {
            store().add(ready(id(), T0.plusSeconds(i)));
        }
        ExecutorService pool8 = Executors.newFixedThreadPool(claimers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<java.util.Optional<PooledSandbox>>> results = new ArrayList<>();
            for (int i = 0; i < claimers; i++) {
                String key = "key-" + i;
                results.add(
                        pool8.submit(
                                () -> {
                                    go.await();
                                    return store().claimOldest(
                                                    pool,
                                                    T0.minusSeconds(1),
                                                    key,
                                                    T0.plusSeconds(9),
                                                    4);
                                }));
            }
            go.countDown();
            List<String> won = new ArrayList<>();
            for (Future<java.util.Optional<PooledSandbox>> r : results) {
                r.get().ifPresent(p -> won.add(p.providerSandboxId()));
            }
            assertThat(won).hasSize(rows).doesNotHaveDuplicates();
        } finally {
            pool8.shutdownNow();
        }
    }

    @Test
    void aRemovedRowIsGoneAndExistsAnswersByProviderAndId() {
        String id = id();
        store().add(ready(id, T0));
        assertThat(store().exists("docker", id)).isTrue();
        assertThat(store().exists("local", id)).isFalse();

        assertThat(store().remove(id)).isTrue();
        assertThat(store().remove(id)).isFalse();
        assertThat(store().exists("docker", id)).isFalse();
    }
}
