package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.reaper.SweepResult.RunEntry;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.kubernetes.KubernetesSandboxProvider;
import dev.agentbox.sandbox.kubernetes.KubernetesSettings;
import dev.agentbox.sandbox.kubernetes.MockServerLogs;
import dev.agentbox.sandbox.kubernetes.PodContainers;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.testing.NeedsDocker;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The reaper, orphan collection and idle expiry over the Kubernetes provider, with two replicas:
 * two providers (each its own channel connections, as two servers have) on one database. Pods are
 * the mock API server's, each a Docker container running this build's helper over TCP ({@link
 * PodContainers}), so the second replica reads the run's journal from the real helper with the key
 * it finds in the pod's Secret, and every deletion is checked on the API's objects.
 */
@NeedsDocker
@EnableKubernetesMockClient(crud = true)
class KubernetesReaperTest {

    private static final String NS = "sandboxes-reaper";

    static KubernetesClient client;

    static final Logger QUIET = MockServerLogs.quiet();

    private static TestDatabase db;

    private PodContainers pods;
    private KubernetesSandboxProvider replicaA;
    private KubernetesSandboxProvider replicaB;
    private ReaperFixture a;
    private ReaperFixture b;

    @BeforeAll
    static void openDatabase() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
    }

    @AfterAll
    static void closeDatabase() {
        db.close();
    }

    @BeforeEach
    void twoReplicas() {
        ReaperDatabaseTest.clear(db);
        pods = PodContainers.start(client, NS);
        replicaA = replica();
        replicaB = replica();
        a = new ReaperFixture(db, "node-a", replicaA);
        b = new ReaperFixture(db, "node-b", replicaB);
    }

    private static KubernetesSandboxProvider replica() {
        return new KubernetesSandboxProvider(
                KubernetesSettings.defaults()
                        .withEnabled(true) // as configured: a disabled provider is invisible
                        .withNamespace(NS)
                        .withReadyTimeout(Duration.ofSeconds(60)),
                client);
    }

    @AfterEach
    void tearDown() {
        b.close();
        a.close();
        replicaB.close();
        replicaA.close();
        pods.close();
    }

    @Test
    @DisplayName(
            "RP-01 on Kubernetes: a run whose driver on one replica went away is finished by the other replica's sweep,"
                    + " every line once, and its pod and Secret are deleted")
    void aRunLeftByOneReplicaIsFinalizedByTheOthersSweepAndItsPodDeleted() throws Exception {
        Box box = a.sandbox();
        String pod = box.handle().id();
        assertThat(client.pods().inNamespace(NS).withName(pod).get()).isNotNull();
        assertThat(client.secrets().inNamespace(NS).withName(pod + "-secrets").get()).isNotNull();
        String gate = "/tmp/gate-" + UUID.randomUUID();
        // Replica A drives two lines over the pod's channel, then leaves without a terminal
        // write, as a server that dies does.
        RunRecordView run =
                a.runLeftByItsDriverAfterTwoLines(box, "k8s-rp01-" + UUID.randomUUID(), gate);
        a.detach(run, b.clock.instant().minusSeconds(5));
        box.handle().process().exec("touch " + gate);
        b.awaitExit(box, run);

        SweepResult result = b.reaper(b.settings()).sweep();

        RunEntry e = entry(result, run);
        assertThat(e.outcome()).isEqualTo(SweepOutcome.FINALIZED);
        assertThat(e.status()).contains("completed");
        assertThat(e.exitCode()).contains(0);
        assertThat(e.reclaim()).contains(ReclaimOutcome.DESTROYED);
        List<String> chunks = b.chunkJson(run);
        for (String line : List.of("line-1", "line-2", "line-3", "line-4")) {
            assertThat(count(chunks, line)).as(line).isEqualTo(1);
        }
        assertThat(b.chunkTypes(run)).last().isEqualTo("RUN_FINISHED");
        assertThat(b.chunkTypes(run).stream().filter("RUN_FINISHED"::equals)).hasSize(1);
        assertThat(b.fresh(run).driverEpoch().getAsLong()).isEqualTo(2);
        assertThat(client.pods().inNamespace(NS).withName(pod).get()).isNull();
        assertThat(client.secrets().inNamespace(NS).withName(pod + "-secrets").get()).isNull();
        assertThat(b.instances.find(a.tenant, box.key())).isEmpty();
    }

    @Test
    @DisplayName(
            "orphans on Kubernetes: an unrecorded pod of this installation older than the grace is found by label and"
                    + " deleted by either replica; young, foreign and recorded pods stay")
    void orphanedPodsAreFoundByLabelAndDeleted() {
        String orphan = a.unrecordedContainer(ReaperFixture.INSTALLATION);
        String foreign = a.unrecordedContainer("another-installation");
        Box recorded = a.sandbox();
        assertThat(b.labelsOf(orphan))
                .containsEntry(SandboxLabels.INSTALLATION, ReaperFixture.INSTALLATION)
                .containsEntry(SandboxLabels.MANAGED, "true");
        ReaperSettings settings = b.settings();

        SweepResult young = b.reaper(settings).sweep();
        assertThat(young.orphans().destroyed()).doesNotContain("kubernetes:" + orphan);
        assertThat(client.pods().inNamespace(NS).withName(orphan).get()).isNotNull();

        b.clock.advance(settings.orphanGrace().plusMinutes(1));
        SweepResult old = b.reaper(settings).sweep();

        assertThat(old.orphans().destroyed())
                .containsExactly("kubernetes:" + orphan)
                .doesNotContain("kubernetes:" + foreign, "kubernetes:" + recorded.handle().id());
        assertThat(client.pods().inNamespace(NS).withName(orphan).get()).isNull();
        assertThat(client.secrets().inNamespace(NS).withName(orphan + "-secrets").get()).isNull();
        assertThat(client.pods().inNamespace(NS).withName(foreign).get()).isNotNull();
        assertThat(client.pods().inNamespace(NS).withName(recorded.handle().id()).get())
                .isNotNull();
    }

    @Test
    @DisplayName(
            "idle expiry on Kubernetes: a sandbox past its keep-alive is destroyed by the other replica (pod, Secret,"
                    + " record); one still within it stays")
    void anIdleSandboxIsExpiredByTheOtherReplica() {
        Box idle = a.sandbox();
        Box fresh = a.sandbox();
        // Both records say keep-alive 1 h from now; the fresh one is used again later.
        b.clock.advance(Duration.ofMinutes(90));
        a.instances.upsert(
                new SandboxInstance(
                        fresh.key(),
                        a.tenant,
                        replicaA.name(),
                        fresh.handle().id(),
                        null,
                        b.clock.instant(),
                        3_600_000));

        int expired = b.sandboxes.expireIdle(100);

        assertThat(expired).isEqualTo(1);
        String pod = idle.handle().id();
        assertThat(client.pods().inNamespace(NS).withName(pod).get()).isNull();
        assertThat(client.secrets().inNamespace(NS).withName(pod + "-secrets").get()).isNull();
        assertThat(a.instances.find(a.tenant, idle.key())).isEmpty();
        assertThat(client.pods().inNamespace(NS).withName(fresh.handle().id()).get()).isNotNull();
        assertThat(a.instances.find(a.tenant, fresh.key())).isPresent();
    }

    private static RunEntry entry(SweepResult result, RunRecordView run) {
        return result.runs().stream()
                .filter(e -> e.runId().equals(run.runId()))
                .findFirst()
                .orElseThrow();
    }

    private static long count(List<String> chunks, String text) {
        return chunks.stream().filter(c -> c.contains(text)).count();
    }
}
