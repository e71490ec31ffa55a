package dev.agentbox.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.platform.lease.JpaLeaseStore;
import dev.agentbox.platform.lease.LeaseStore;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.sandbox.kubernetes.KubernetesSandboxProvider;
import dev.agentbox.sandbox.kubernetes.KubernetesSettings;
import dev.agentbox.sandbox.kubernetes.MockServerLogs;
import dev.agentbox.sandbox.kubernetes.PodContainers;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.JpaPoolStore;
import dev.agentbox.sandbox.store.JpaSandboxInstanceStore;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.PooledSandbox;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import dev.agentbox.testing.NeedsDocker;
import dev.agentbox.testing.SettableClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The warm pool over the Kubernetes provider: refills make pods labelled with their pool (no key,
 * no tenant), a claim hands one out whose helper answers over the pod network, and a stopping
 * server's drain deletes the rest from the API. Pods are the mock API server's, each a Docker
 * container running this build's helper ({@link PodContainers}); the pool's rows and leases are on
 * Derby. The hand-out rules themselves are {@code WarmPoolTest}'s, on the local provider.
 */
@NeedsDocker
@EnableKubernetesMockClient(crud = true)
class KubernetesWarmPoolTest {

    private static final String NS = "sandboxes-pool";

    static KubernetesClient client;

    static final Logger QUIET = MockServerLogs.quiet();

    private static TestDatabase db;
    private static ScheduledExecutorService scheduler;

    private final SettableClock clock = new SettableClock(Instant.now());
    private PodContainers pods;
    private KubernetesSandboxProvider kubernetes;
    private PoolStore store;
    private SandboxInstanceStore instances;
    private PoolEntry entry;

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
    void setUp() {
        db.clear(PooledSandbox.class, SandboxInstance.class);
        pods = PodContainers.start(client, NS);
        kubernetes =
                new KubernetesSandboxProvider(
                        KubernetesSettings.defaults()
                                .withEnabled(true)
                                .withNamespace(NS)
                                .withReadyTimeout(Duration.ofSeconds(60)),
                        client);
        store = db.transactional(PoolStore.class, JpaPoolStore::new);
        instances =
                db.transactional(
                        SandboxInstanceStore.class,
                        em -> new JpaSandboxInstanceStore(em, db.dataSource()));
        entry =
                new PoolEntry(
                        KubernetesSandboxProvider.NAME,
                        kubernetes.settings().image(),
                        SandboxPolicy.defaults());
    }

    @AfterEach
    void tearDown() {
        for (ManagedSandbox s : kubernetes.listManaged()) {
            kubernetes.destroy(s.id());
        }
        kubernetes.close();
        pods.close();
    }

    private record Pool(WarmPool handOut, PoolUpkeep upkeep) {}

    private Pool pool(int size) {
        PoolSettings settings =
                new PoolSettings(
                        size,
                        List.of(entry),
                        Duration.ofMinutes(30),
                        Duration.ofSeconds(5),
                        Duration.ZERO,
                        Duration.ofMinutes(1),
                        entry.image());
        Function<String, Optional<SandboxProvider>> providers =
                name -> name.equals(kubernetes.name()) ? Optional.of(kubernetes) : Optional.empty();
        PoolMetrics metrics = new PoolMetrics(null);
        Leases leases =
                new Leases(
                        db.transactional(LeaseStore.class, JpaLeaseStore::new),
                        Clock.systemUTC(),
                        "node-a",
                        scheduler);
        return new Pool(
                new WarmPool(providers, store, clock, settings, metrics),
                new PoolUpkeep(
                        providers,
                        store,
                        instances,
                        leases,
                        clock,
                        "node-a",
                        () -> Optional.of("inst-k8s"),
                        settings,
                        metrics));
    }

    @Test
    void aRefillMakesPodsLabelledWithTheirPoolAndNoOwner() {
        Pool pool = pool(2);

        assertThat(pool.upkeep().refill()).isEqualTo(2);

        List<Pod> made =
                client.pods()
                        .inNamespace(NS)
                        .withLabel(SandboxLabels.MANAGED, "true")
                        .list()
                        .getItems();
        assertThat(made).hasSize(2);
        for (ManagedSandbox s : kubernetes.listManaged()) {
            assertThat(s.labels())
                    .containsEntry(SandboxLabels.POOL, entry.key())
                    .containsEntry(SandboxLabels.INSTALLATION, "inst-k8s")
                    .doesNotContainKeys(SandboxLabels.KEY, SandboxLabels.TENANT);
        }
        assertThat(store.countReady(entry.key(), Instant.EPOCH)).isEqualTo(2);
    }

    @Test
    void aClaimedPodAnswersOverItsChannelAndADrainDeletesTheRestFromTheApi() {
        Pool pool = pool(2);
        pool.upkeep().refill();

        WarmPool.Claim claim = pool.handOut().claim(entry, "key-1").orElseThrow();
        pool.handOut().claimed(claim);

        assertThat(claim.handle().process().exec("echo warm").stdout()).isEqualTo("warm\n");
        assertThat(store.exists(kubernetes.name(), claim.handle().id())).isFalse();

        assertThat(pool.upkeep().drain()).isEqualTo(1);
        List<String> left =
                client.pods().inNamespace(NS).list().getItems().stream()
                        .map(p -> p.getMetadata().getName())
                        .toList();
        assertThat(left).containsExactly(claim.handle().id());
    }
}
