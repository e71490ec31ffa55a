package dev.agentbox.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.platform.lease.JpaLeaseStore;
import dev.agentbox.platform.lease.LeaseRow;
import dev.agentbox.platform.lease.LeaseStore;
import dev.agentbox.platform.lease.Leases;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cluster-wide quotas (sandboxes, concurrent runs) over a real database: two "servers" (two
 * {@link Leases} with their own node ids) share one Derby lease table, and the tenant's records are
 * a set the test stores into, as the sandbox and run stores would.
 */
class RecordedQuotasTest {

    private static TestDatabase db;
    private static ScheduledExecutorService scheduler;
    private TenantQuotas serverA;
    private TenantQuotas serverB;
    private final Set<String> records = ConcurrentHashMap.newKeySet();
    private final ExecutorService pool = Executors.newFixedThreadPool(12);

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
        scheduler = Executors.newScheduledThreadPool(2);
    }

    @AfterAll
    static void close() {
        scheduler.shutdownNow();
        db.close();
    }

    @BeforeEach
    void servers() {
        db.clear(LeaseRow.class);
        LeaseStore store = db.transactional(LeaseStore.class, JpaLeaseStore::new);
        QuotaLimits limits = QuotaLimits.of(Map.of(Quota.SANDBOXES, 3, Quota.CONCURRENT_RUNS, 2));
        serverA =
                new TenantQuotas(
                        limits, new Leases(store, Clock.systemUTC(), "server-a", scheduler));
        serverB =
                new TenantQuotas(
                        limits, new Leases(store, Clock.systemUTC(), "server-b", scheduler));
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private Slot reserve(TenantQuotas server, String tenant, String item) {
        return server.reserve(tenant, Quota.SANDBOXES, item, max -> Set.copyOf(records));
    }

    /** CQ-01: twelve creations on two servers racing for the last two slots admit exactly two. */
    @Test
    void twelveCreationsOnTwoServersRacingForTheLastTwoSlotsAdmitExactlyTwo() throws Exception {
        records.add("existing");
        CyclicBarrier start = new CyclicBarrier(12);
        ConcurrentLinkedQueue<Slot> granted = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<QuotaExceededException> refused = new ConcurrentLinkedQueue<>();
        List<Future<?>> all = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            TenantQuotas server = i % 2 == 0 ? serverA : serverB;
            String key = "key-" + i;
            all.add(
                    pool.submit(
                            () -> {
                                start.await();
                                try {
                                    granted.add(reserve(server, "alpha", key));
                                } catch (QuotaExceededException e) {
                                    refused.add(e);
                                }
                                return null;
                            }));
        }
        for (Future<?> f : all) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(granted).hasSize(2);
        assertThat(refused)
                .hasSize(10)
                .allSatisfy(
                        e -> {
                            assertThat(e.extensions())
                                    .containsEntry("quota", "sandboxes")
                                    .containsEntry("limit", 3)
                                    .containsEntry("scope", "cluster");
                            assertThat(e.retryAfterSeconds()).isEmpty();
                        });
        granted.forEach(Slot::close);
    }

    /** CQ-01: a creation in flight on one server counts on the other. */
    @Test
    void aCreationInFlightOnOneServerCountsOnTheOther() {
        records.add("r1");
        Slot inFlight = reserve(serverA, "alpha", "k2");
        Slot another = reserve(serverB, "alpha", "k3");
        assertThatThrownBy(() -> reserve(serverB, "alpha", "k4"))
                .isInstanceOf(QuotaExceededException.class);
        another.close(); // that creation failed: its slot is free again
        Slot retried = reserve(serverB, "alpha", "k4");
        inFlight.close();
        retried.close();
    }

    /** CQ-01: a recorded item is not new and is counted once. */
    @Test
    void aRecordedItemIsNotNewAndAStoredCreationIsCountedOnce() {
        records.add("k1");
        records.add("k2");
        records.add("k3");
        // At the limit, an ensure of an existing key (resume, restore, re-create) is not refused.
        try (Slot again = reserve(serverA, "alpha", "k2")) {
            assertThat(again).isSameAs(Slot.NONE);
        }
        assertThatThrownBy(() -> reserve(serverA, "alpha", "k4"))
                .isInstanceOf(QuotaExceededException.class);
        records.remove("k3"); // a sandbox deleted
        Slot creating = reserve(serverB, "alpha", "k4");
        records.add("k4"); // its record is stored before the slot is released: still one, not two
        assertThat(records).hasSize(3);
        assertThatThrownBy(() -> reserve(serverA, "alpha", "k5"))
                .isInstanceOf(QuotaExceededException.class);
        creating.close();
        assertThatThrownBy(() -> reserve(serverA, "alpha", "k5"))
                .isInstanceOf(QuotaExceededException.class);
    }

    @Test
    void anotherTenantIsCountedOnItsOwn() {
        records.addAll(List.of("k1", "k2", "k3"));
        try (Slot beta = serverA.reserve("beta", Quota.SANDBOXES, "b1", max -> Set.of())) {
            assertThat(beta).isNotSameAs(Slot.NONE);
        }
        assertThatThrownBy(() -> reserve(serverA, "alpha", "k4"))
                .isInstanceOf(QuotaExceededException.class);
    }

    @Test
    void runsAndSandboxesAreSeparateQuotas() {
        try (Slot run1 = serverA.reserve("alpha", Quota.CONCURRENT_RUNS, "r1", max -> Set.of());
                Slot run2 = serverB.reserve("alpha", Quota.CONCURRENT_RUNS, "r2", max -> Set.of());
                Slot sandbox = reserve(serverA, "alpha", "k1")) {
            assertThatThrownBy(
                            () ->
                                    serverA.reserve(
                                            "alpha", Quota.CONCURRENT_RUNS, "r3", max -> Set.of()))
                    .isInstanceOfSatisfying(
                            QuotaExceededException.class,
                            e -> {
                                assertThat(e.extensions())
                                        .containsEntry("quota", "concurrent-runs")
                                        .containsEntry("limit", 2);
                                assertThat(e.retryAfterSeconds()).hasValue(10);
                            });
        }
    }
}
