package dev.agentbox.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.kubernetes.KubernetesSandboxProvider;
import dev.agentbox.sandbox.kubernetes.KubernetesSettings;
import dev.agentbox.sandbox.kubernetes.MockServerLogs;
import dev.agentbox.sandbox.kubernetes.PodContainers;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.testing.NeedsDocker;
import dev.agentbox.testing.SettableClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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

    private static PoolFixture fixture;

    private final SettableClock clock = new SettableClock(Instant.now());
    private PodContainers pods;
    private KubernetesSandboxProvider kubernetes;
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
    void setUp() {
        fixture.clear();
        pods = PodContainers.start(client, NS);
        kubernetes =
                new KubernetesSandboxProvider(
                        KubernetesSettings.defaults()
                                .withEnabled(true)
                                .withNamespace(NS)
                                .withReadyTimeout(Duration.ofSeconds(60)),
                        client);
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

    private PoolFixture.Pool pool(int size) {
        return fixture.pool(kubernetes, entry, clock, "node-a", size, "inst-k8s");
    }

    @Test
    void aRefillMakesPodsLabelledWithTheirPoolAndNoOwner() {
        PoolFixture.Pool pool = pool(2);

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
        assertThat(fixture.store.countReady(entry.key(), Instant.EPOCH)).isEqualTo(2);
    }

    @Test
    void aClaimedPodAnswersOverItsChannelAndADrainDeletesTheRestFromTheApi() {
        PoolFixture.Pool pool = pool(2);
        pool.upkeep().refill();

        WarmPool.Claim claim = pool.handOut().claim(entry, "key-1").orElseThrow();
        pool.handOut().claimed(claim);

        assertThat(claim.handle().process().exec("echo warm").stdout()).isEqualTo("warm\n");
        assertThat(fixture.store.exists(kubernetes.name(), claim.handle().id())).isFalse();

        assertThat(pool.upkeep().drain()).isEqualTo(1);
        List<String> left =
                client.pods().inNamespace(NS).list().getItems().stream()
                        .map(p -> p.getMetadata().getName())
                        .toList();
        assertThat(left).containsExactly(claim.handle().id());
    }
}
