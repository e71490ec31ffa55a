package dev.agentbox.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.sandbox.local.LocalSandboxProvider;
import dev.agentbox.sandbox.local.LocalSettings;
import dev.agentbox.sandbox.pool.PoolFixture.Pool;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.PooledSandbox;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import dev.agentbox.testing.SettableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The warm pool's hand-out and clean-up rules, with real parts: the pool and instance stores and
 * the leases on Derby, and the local provider (folders), whose sandboxes cost milliseconds. The
 * rules WP-01..08 and WP-10 (docs/behavior.md); over HTTP with Docker and PostgreSQL they are
 * {@code WarmPoolPostgresIT} (WP-03, WP-07, WP-09).
 */
class WarmPoolTest {

    private static PoolFixture fixture;

    private Path root;
    private LocalSandboxProvider local;
    private PoolStore store;
    private SandboxInstanceStore instances;
    private Leases leases;

    /** The pool's clock, moved by the tests; the leases keep the real one. */
    private final SettableClock clock = new SettableClock(Instant.now());

    private PoolEntry entry;

    @BeforeAll
    static void open() {
        fixture = PoolFixture.open();
    }

    @AfterAll
    static void close() {
        fixture.close();
    }

    @BeforeEach
    void setUp() throws IOException {
        fixture.clear();
        root = Files.createTempDirectory("agentbox-pool-test");
        local =
                new LocalSandboxProvider(
                        new LocalSettings(true, root), new DaemonThreads("test-pool"), clock);
        store = fixture.store;
        instances = fixture.instances;
        leases = fixture.leases;
        // A distinct image name per test: the pool key differs, so rows never mix.
        entry = new PoolEntry("local", "img-" + UUID.randomUUID(), SandboxPolicy.defaults());
    }

    @AfterEach
    void tearDown() {
        for (ManagedSandbox s : local.listManaged()) {
            local.destroy(s.id());
        }
    }

    private Pool pool(String node, int size) {
        return fixture.pool(local, entry, clock, node, size, "inst-1");
    }

    private boolean alive(String id) {
        return local.resume(id).isPresent();
    }

    @Test
    void aRefillMakesTheConfiguredNumberOfUnownedSandboxesLabelledWithTheirPool() {
        Pool pool = pool("node-a", 2);

        assertThat(pool.refill()).isEqualTo(2);
        assertThat(pool.refill()).isZero();

        List<ManagedSandbox> made = local.listManaged();
        assertThat(made).hasSize(2);
        for (ManagedSandbox s : made) {
            assertThat(s.labels())
                    .containsEntry(SandboxLabels.POOL, entry.key())
                    .containsEntry(SandboxLabels.INSTALLATION, "inst-1")
                    .doesNotContainKeys(SandboxLabels.KEY, SandboxLabels.TENANT);
        }
        assertThat(store.countReady(entry.key(), Instant.EPOCH)).isEqualTo(2);
    }

    @Test
    void eachReadySandboxIsHandedOutOnceAndThenTheClaimsMiss() {
        Pool pool = pool("node-a", 2);
        pool.refill();

        WarmPool.Claim first = pool.claim(entry, "key-1").orElseThrow();
        WarmPool.Claim second = pool.claim(entry, "key-2").orElseThrow();
        assertThat(pool.claim(entry, "key-3")).isEmpty();

        assertThat(first.handle().id()).isNotEqualTo(second.handle().id());
        pool.claimed(first);
        assertThat(store.exists("local", first.handle().id())).isFalse();
        assertThat(alive(first.handle().id())).isTrue();
    }

    @Test
    void twoServersClaimingFromOnePoolAtOnceNeverShareASandbox() throws Exception {
        Pool a = pool("node-a", 3);
        Pool b = pool("node-b", 3);
        a.refill();
        int ensures = 8;
        ExecutorService threads = Executors.newFixedThreadPool(ensures);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Optional<WarmPool.Claim>>> results = new ArrayList<>();
            for (int i = 0; i < ensures; i++) {
                Pool server = i % 2 == 0 ? a : b;
                String key = "key-" + i;
                results.add(
                        threads.submit(
                                () -> {
                                    go.await();
                                    return server.claim(entry, key);
                                }));
            }
            go.countDown();
            Set<String> handedOut = new HashSet<>();
            int hits = 0;
            for (Future<Optional<WarmPool.Claim>> r : results) {
                Optional<WarmPool.Claim> c = r.get();
                if (c.isPresent()) {
                    hits++;
                    assertThat(handedOut.add(c.get().handle().id()))
                            .as("handed out twice: %s", c.get().handle().id())
                            .isTrue();
                }
            }
            assertThat(hits).isEqualTo(3);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void anAbandonedClaimDestroysItsSandboxAndForgetsIt() {
        Pool pool = pool("node-a", 1);
        pool.refill();
        WarmPool.Claim c = pool.claim(entry, "key-1").orElseThrow();

        pool.abandon(c);

        assertThat(alive(c.handle().id())).isFalse();
        assertThat(store.exists("local", c.handle().id())).isFalse();
    }

    @Test
    void aClaimLeftUnfinishedByADeadServerIsDestroyedOnceItsGraceHasPassed() {
        Pool pool = pool("node-a", 1);
        pool.refill();
        String id = pool.claim(entry, "key-dead").orElseThrow().handle().id();
        // The claiming server dies here: neither claimed() nor abandon() ever runs.

        clock.advance(Duration.ofSeconds(30));
        assertThat(pool.tidy()).isZero();
        assertThat(alive(id)).isTrue();

        clock.advance(Duration.ofSeconds(31));
        assertThat(pool.tidy()).isEqualTo(1);
        assertThat(alive(id)).isFalse();
        assertThat(store.exists("local", id)).isFalse();
    }

    @Test
    void anUnfinishedClaimWhoseEnsureStillHoldsItsKeyIsLeftAlone() {
        Pool pool = pool("node-a", 1);
        pool.refill();
        String id = pool.claim(entry, "key-busy").orElseThrow().handle().id();
        try (var held =
                leases.acquire(
                                LeaseNames.sandbox("key-busy"),
                                Duration.ofSeconds(30),
                                Duration.ZERO)
                        .orElseThrow()) {
            clock.advance(Duration.ofMinutes(5));
            assertThat(pool.tidy()).isZero();
            assertThat(alive(id)).isTrue();
        }
    }

    @Test
    void aClaimedSandboxThatGotRecordedOnlyLosesItsRow() {
        Pool pool = pool("node-a", 1);
        pool.refill();
        String id = pool.claim(entry, "key-rec").orElseThrow().handle().id();
        instances.upsert(
                new SandboxInstance(
                        "k".repeat(64), "tenant-a", "local", id, null, clock.instant(), 60_000));

        clock.advance(Duration.ofMinutes(5));
        assertThat(pool.tidy()).isZero();

        assertThat(alive(id)).isTrue();
        assertThat(store.exists("local", id)).isFalse();
    }

    @Test
    void readySandboxesPastTheMaximumAgeAreNeverHandedOutAndAreReplaced() {
        Pool pool = pool("node-a", 1);
        pool.refill();
        String old = store.all(10).get(0).providerSandboxId();

        clock.advance(Duration.ofMinutes(31));
        assertThat(pool.claim(entry, "key-1")).isEmpty();
        assertThat(pool.tidy()).isEqualTo(1);
        assertThat(alive(old)).isFalse();

        assertThat(pool.refill()).isEqualTo(1);
        assertThat(pool.claim(entry, "key-2")).isPresent();
    }

    @Test
    void aPooledSandboxDestroyedBehindThePoolsBackIsSkipped() {
        Pool pool = pool("node-a", 2);
        pool.refill();
        List<PooledSandbox> rows = store.ready(entry.key(), Instant.EPOCH, 10);
        local.destroy(rows.get(0).providerSandboxId());

        WarmPool.Claim c = pool.claim(entry, "key-1").orElseThrow();

        assertThat(c.handle().id()).isEqualTo(rows.get(1).providerSandboxId());
        assertThat(store.exists("local", rows.get(0).providerSandboxId())).isFalse();
    }

    @Test
    void aReadySandboxRemovedOutsideThePoolIsForgottenSoTheNextRefillReplacesIt() {
        Pool pool = pool("node-a", 2);
        pool.refill();
        String removed = store.ready(entry.key(), Instant.EPOCH, 10).get(0).providerSandboxId();
        local.destroy(removed); // an operator's docker rm -f

        assertThat(pool.tidy()).isZero();

        assertThat(store.exists("local", removed)).isFalse();
        assertThat(pool.refill()).isEqualTo(1);
        assertThat(store.countReady(entry.key(), Instant.EPOCH)).isEqualTo(2);
    }

    @Test
    void aStoppingServerDestroysOnlyTheReadySandboxesItMade() {
        Pool a = pool("node-a", 1);
        a.refill();
        String mine = store.all(10).get(0).providerSandboxId();
        store.add(
                new PooledSandbox(
                        local.create(
                                        dev.agentbox.sandbox.spi.SandboxCreateInput.defaults()
                                                .withPool(entry.key()))
                                .id(),
                        "local",
                        entry.key(),
                        clock.instant(),
                        "node-b"));

        assertThat(a.drain()).isEqualTo(1);

        assertThat(alive(mine)).isFalse();
        assertThat(store.all(10)).extracting(PooledSandbox::createdBy).containsExactly("node-b");
    }

    @Test
    void readySandboxesOfAnEntryNoLongerConfiguredAreRetired() {
        String stray =
                local.create(
                                dev.agentbox.sandbox.spi.SandboxCreateInput.defaults()
                                        .withPool("0123456789abcdef"))
                        .id();
        store.add(new PooledSandbox(stray, "local", "0123456789abcdef", clock.instant(), "node-x"));
        Pool off = pool("node-a", 0);
        off.refill();
        String mine =
                pool("node-a", 1).refill() == 1
                        ? store.ready(entry.key(), Instant.EPOCH, 1).get(0).providerSandboxId()
                        : null;

        assertThat(off.tidy()).isEqualTo(1);

        assertThat(alive(stray)).isFalse();
        assertThat(alive(mine)).as("a configured entry's sandbox, pool size 0").isTrue();
    }

    @Test
    void anEnsureIsServedOnlyByAnEntryWithExactlyItsImageAndPolicy() {
        Pool pool = pool("node-a", 1);
        assertThat(pool.entryFor("local", Optional.of(entry.image()), SandboxPolicy.defaults()))
                .contains(entry);
        assertThat(pool.entryFor("local", Optional.empty(), SandboxPolicy.defaults()))
                .contains(entry); // no image: the default, which this test's settings name
        assertThat(pool.entryFor("local", Optional.of("other"), SandboxPolicy.defaults()))
                .isEmpty();
        assertThat(
                        pool.entryFor(
                                "local",
                                Optional.of(entry.image()),
                                SandboxPolicy.defaults().withLimits(512, 1.0, 64)))
                .isEmpty();
        assertThat(pool.entryFor("docker", Optional.of(entry.image()), SandboxPolicy.defaults()))
                .isEmpty();
        assertThat(pool("node-a", 0).entryFor("local", Optional.empty(), SandboxPolicy.defaults()))
                .isEmpty();
        assertThat(
                        pool.entryFor(
                                "local",
                                Optional.of(entry.image()),
                                SandboxPolicy.defaults().withNetwork(SandboxPolicy.Network.EGRESS)))
                .as("an egress sandbox is never a pooled one, even without rules")
                .isEmpty();
    }

    @Test
    void onlyNetworkNoneCanBePooledSoEgressSandboxesAreAlwaysMadeForTheirEnsure() {
        for (SandboxPolicy.Network n :
                List.of(SandboxPolicy.Network.BRIDGE, SandboxPolicy.Network.EGRESS)) {
            assertThatThrownBy(
                            () ->
                                    new PoolEntry(
                                            "docker",
                                            "agentbox/sandbox:bookworm",
                                            SandboxPolicy.defaults().withNetwork(n)))
                    .as(n.name())
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
