package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelKey;
import dev.agentbox.sandbox.channel.HostSandboxd;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxExistsException;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import dev.agentbox.testing.Slow;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider against fabric8's mock API server in CRUD mode (in-process, no cluster): what it
 * creates, reads, lists and deletes, and how a create that never gets a ready pod ends. A {@link
 * FakeKubelet} stands in for the kubelet that reports pod status.
 */
// The mock API server takes seconds to warm up: slow tier (mvn verify), not mvn test.
@Slow
@EnableKubernetesMockClient(crud = true)
class KubernetesSandboxProviderTest {

    static final String KEY_A = "a".repeat(64);
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    /** One mock server for the class; each test has a namespace of its own. */
    static KubernetesClient client;

    static final Logger QUIET = MockServerLogs.quiet();

    String NS;
    FakeKubelet kubelet;
    KubernetesSandboxProvider provider;

    @BeforeEach
    void start() {
        NS = "sandboxes-" + NAMESPACES.incrementAndGet();
        kubelet = new FakeKubelet(client, NS);
        provider = new KubernetesSandboxProvider(settings(Duration.ofSeconds(10)), client);
    }

    private KubernetesSettings settings(Duration readyTimeout) {
        return KubernetesSettings.defaults().withNamespace(NS).withReadyTimeout(readyTimeout);
    }

    @AfterEach
    void stop() {
        kubelet.close();
    }

    private static SandboxCreateInput input(String id, String tenant) {
        return SandboxCreateInput.defaults()
                .withRequestedId(id)
                .withKey(KEY_A, tenant)
                .withInstallation("install-1");
    }

    private Pod pod(String name) {
        return client.pods().inNamespace(NS).withName(name).get();
    }

    private Secret secret(String name) {
        return client.secrets().inNamespace(NS).withName(name).get();
    }

    private NetworkPolicy policy(String name) {
        return client.network().networkPolicies().inNamespace(NS).withName(name).get();
    }

    @Test
    void isDisabledByDefaultAndClaimsTheDataPathAndPortsButNoEgressPolicySnapshotsOrFork() {
        assertThat(KubernetesSettings.defaults().enabled()).isFalse();
        assertThat(provider.enabled()).isFalse();
        assertThat(provider.capabilities().networkPolicy())
                .as("no egress gateway deployed by default: egress ensures are refused")
                .isFalse();
        assertThat(provider.capabilities().fs()).isTrue();
        assertThat(provider.capabilities().exec()).isTrue();
        assertThat(provider.capabilities().env()).isTrue();
        assertThat(provider.capabilities().backgroundProcesses()).isTrue();
        assertThat(provider.capabilities().killableProcesses()).isTrue();
        assertThat(provider.capabilities().writableStdin()).isTrue();
        assertThat(provider.capabilities().ports()).isTrue();
        assertThat(provider.capabilities().durableFilesystem()).isFalse();
        assertThat(provider.capabilities().snapshots()).isFalse();
        assertThat(provider.capabilities().fork()).isFalse();
    }

    @Test
    void createReturnsAReadyLabelledPodWithItsNetworkPolicyOwnedByIt() {
        SandboxHandle sb = provider.create(input("s1", "tenant-a"));

        assertThat(sb.id()).isEqualTo("agentbox-s1");
        Pod pod = pod("agentbox-s1");
        assertThat(PodReadiness.ready(pod)).isTrue();
        Map<String, String> labels = pod.getMetadata().getLabels();
        assertThat(labels)
                .containsEntry(SandboxLabels.MANAGED, "true")
                .containsEntry(SandboxLabels.TENANT, "tenant-a")
                .containsEntry(SandboxLabels.INSTALLATION, "install-1")
                .containsEntry(SandboxObjects.SANDBOX, "agentbox-s1")
                .containsEntry(SandboxObjects.NETWORK, "none");
        // 64 characters: one more than a label value may hold, so hashed, exact in an annotation
        assertThat(labels.get(SandboxLabels.KEY)).startsWith("h.").hasSizeLessThanOrEqualTo(63);
        assertThat(pod.getMetadata().getAnnotations()).containsEntry(SandboxLabels.KEY, KEY_A);
        NetworkPolicy np = policy("agentbox-s1-network");
        assertThat(np.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo(pod.getMetadata().getUid()));
        Secret secret = secret("agentbox-s1-secrets");
        assertThat(secret.getData())
                .as("no tenant secrets: the channel key alone")
                .containsOnlyKeys(SandboxObjects.CHANNEL_KEY_ITEM);
        assertThat(
                        Base64.getDecoder()
                                .decode(secret.getData().get(SandboxObjects.CHANNEL_KEY_ITEM)))
                .hasSize(32);
        assertThat(secret.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo(pod.getMetadata().getUid()));
    }

    @Test
    void resumeFindsARunningManagedPodAndNothingElse() {
        provider.create(input("s2", "tenant-a"));
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("not-ours")
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("x")
                                .withImage("busybox:1")
                                .endContainer()
                                .endSpec()
                                .build())
                .create();

        assertThat(provider.resume("agentbox-s2")).map(SandboxHandle::id).contains("agentbox-s2");
        assertThat(provider.resume("not-ours")).isEmpty();
        assertThat(provider.resume("agentbox-missing")).isEmpty();
    }

    @Test
    void destroyDeletesThePodItsSecretAndItsPolicyAndIsIdempotent() {
        SandboxHandle sb = provider.create(input("s3", "tenant-a"), Map.of("TOKEN", "t0ps3cret"));

        sb.destroy();
        provider.destroy(sb.id());

        assertThat(pod("agentbox-s3")).isNull();
        assertThat(secret("agentbox-s3-secrets")).isNull();
        assertThat(policy("agentbox-s3-network")).isNull();
        assertThat(provider.resume("agentbox-s3")).isEmpty();
    }

    @Test
    void destroyLeavesAPodThatIsNotAgentboxsAlone() {
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("agentbox-foreign")
                                .endMetadata()
                                .build())
                .create();

        provider.destroy("agentbox-foreign");

        assertThat(pod("agentbox-foreign")).isNotNull();
    }

    @Test
    void listManagedFindsOrphansByLabelWithTheirExactLabelValues() {
        provider.create(input("s4", "tenant-a"));
        provider.create(input("s5", "tenant-b"));
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder().withNewMetadata().withName("other").endMetadata().build())
                .create();

        List<ManagedSandbox> managed = provider.listManaged();

        assertThat(managed)
                .extracting(ManagedSandbox::id)
                .containsExactlyInAnyOrder("agentbox-s4", "agentbox-s5");
        assertThat(managed)
                .allSatisfy(
                        m ->
                                assertThat(m.labels())
                                        .containsEntry(SandboxLabels.KEY, KEY_A)
                                        .containsEntry(SandboxLabels.INSTALLATION, "install-1"));
        assertThat(managed)
                .extracting(m -> m.labels().get(SandboxLabels.TENANT))
                .containsExactlyInAnyOrder("tenant-a", "tenant-b");
    }

    @Test
    void aSandboxsSecretsAreItsOwnSecretMountedOnlyIntoItsPodAndOwnedByIt() {
        provider.create(input("s6", "tenant-a"), Map.of("TOKEN", "secret-of-a"));
        provider.create(input("s7", "tenant-b"), Map.of("TOKEN", "secret-of-b"));

        Secret a = secret("agentbox-s6-secrets");
        assertThat(
                        new String(
                                Base64.getDecoder().decode(a.getData().get("TOKEN")),
                                StandardCharsets.UTF_8))
                .isEqualTo("secret-of-a");
        assertThat(a.getMetadata().getLabels()).containsEntry(SandboxLabels.TENANT, "tenant-a");
        assertThat(a.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getName()).isEqualTo("agentbox-s6"));
        // tenant b's pod mounts its own Secret and no other
        assertThat(secretVolumes(pod("agentbox-s7"))).containsOnly("agentbox-s7-secrets");
        assertThat(secretVolumes(pod("agentbox-s6"))).containsOnly("agentbox-s6-secrets");
        // the value is nowhere but in the Secret's data
        assertThat(client.pods().inNamespace(NS).withName("agentbox-s6").get().toString())
                .doesNotContain("secret-of-a");
    }

    @Test
    void aTenantNeverSeesAnotherTenantsSecretThroughItsLabels() {
        provider.create(input("s8", "tenant-a"), Map.of("TOKEN", "secret-of-a"));
        provider.create(input("s9", "tenant-b"), Map.of("TOKEN", "secret-of-b"));

        List<Secret> ofB =
                client.secrets()
                        .inNamespace(NS)
                        .withLabel(SandboxLabels.TENANT, "tenant-b")
                        .list()
                        .getItems();

        assertThat(ofB)
                .extracting(s -> s.getMetadata().getName())
                .containsExactly("agentbox-s9-secrets");
    }

    private static List<String> secretVolumes(Pod pod) {
        return pod.getSpec().getVolumes().stream()
                .map(Volume::getSecret)
                .filter(java.util.Objects::nonNull)
                .map(s -> s.getSecretName())
                .toList();
    }

    /**
     * The pod's helper is the real binary on loopback, started with the key the provider wrote into
     * the Secret; the fake kubelet reports the pod's IP as 127.0.0.1.
     */
    @Test
    void anyReplicaReachesTheHelperAtThePodsIpWithTheKeyOfItsSecretAndOnlyThatSandboxsKeyOpensIt(
            @TempDir Path dir) throws Exception {
        int port = HostSandboxd.freeLoopbackPort();
        KubernetesSettings s =
                settings(Duration.ofSeconds(10))
                        .withNetwork(KubernetesSettings.Network.defaults().withHelperPort(port));
        kubelet.behaviour = p -> FakeKubelet.readyAt("127.0.0.1");
        KubernetesSandboxProvider maker = new KubernetesSandboxProvider(s, client);
        maker.create(input("ch1", "tenant-a"));
        maker.create(input("ch2", "tenant-a"));
        ChannelKey key =
                ChannelKey.of(
                        Base64.getDecoder()
                                .decode(
                                        secret("agentbox-ch1-secrets")
                                                .getData()
                                                .get(SandboxObjects.CHANNEL_KEY_ITEM)));

        try (HostSandboxd helper = HostSandboxd.startTcp(dir, key, port)) {
            // Another replica: it made neither sandbox and holds no key in memory.
            KubernetesSandboxProvider replica = new KubernetesSandboxProvider(s, client);
            try {
                SandboxChannel ch = replica.channel("agentbox-ch1").orElseThrow();
                assertThat(ch.stat(dir.toString(), true, Duration.ofSeconds(5))).isPresent();
                assertThat(replica.channel("agentbox-ch1"))
                        .as("kept while it works")
                        .containsSame(ch);
                // ch2's key, at the same address, is refused before any request left.
                SandboxChannel other = replica.channel("agentbox-ch2").orElseThrow();
                Path target = dir.resolve("made-with-ch2s-key");
                assertThatThrownBy(() -> other.mkdir(target.toString(), Duration.ofSeconds(5)))
                        .isInstanceOfSatisfying(
                                ChannelException.class, e -> assertThat(e.requestSent()).isFalse());
                assertThat(target).doesNotExist();
                assertThat(replica.channel("agentbox-none")).isEmpty();
            } finally {
                replica.close();
            }
        } finally {
            maker.close();
        }
    }

    @Test
    void aPodThatIsNeverReadyIsDeletedWithItsSecretAndPolicyAndTheCreateSaysWhy() {
        kubelet.behaviour = p -> FakeKubelet.never();
        KubernetesSandboxProvider impatient =
                new KubernetesSandboxProvider(settings(Duration.ofMillis(500)), client);

        assertThatThrownBy(() -> impatient.create(input("slow", "tenant-a"), Map.of("K", "v")))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE);
                            assertThat(e.getMessage())
                                    .contains("agentbox-slow")
                                    .contains("not ready within 500 ms");
                        });

        assertThat(pod("agentbox-slow")).isNull();
        assertThat(secret("agentbox-slow-secrets")).isNull();
        assertThat(policy("agentbox-slow-network")).isNull();
    }

    @Test
    void aPodWhoseImageCannotBePulledFailsAtOnceAndIsDeleted() {
        kubelet.behaviour = p -> FakeKubelet.imagePullBackOff();

        assertThatThrownBy(() -> provider.create(input("nopull", "tenant-a")))
                .isInstanceOf(ProblemException.class)
                .hasMessageContaining("ImagePullBackOff");

        assertThat(pod("agentbox-nopull")).isNull();
        assertThat(policy("agentbox-nopull-network")).isNull();
    }

    @Test
    void aTakenIdIsSandboxExistsAndTheExistingSandboxIsLeftAlone() {
        provider.create(input("dup", "tenant-a"), Map.of("K", "v"));

        assertThatThrownBy(() -> provider.create(input("dup", "tenant-b")))
                .isInstanceOf(SandboxExistsException.class);
        assertThatThrownBy(() -> provider.create(input("dup", "tenant-b"), Map.of("K", "w")))
                .isInstanceOf(SandboxExistsException.class);

        assertThat(pod("agentbox-dup").getMetadata().getLabels())
                .containsEntry(SandboxLabels.TENANT, "tenant-a");
        assertThat(secret("agentbox-dup-secrets").getMetadata().getLabels())
                .containsEntry(SandboxLabels.TENANT, "tenant-a");
        assertThat(policy("agentbox-dup-network")).isNotNull();
    }

    @Test
    void aPolicyAboveTheCeilingsIsRefusedBeforeAnythingIsCreated() {
        SandboxCreateInput big =
                input("big", "tenant-a")
                        .withPolicy(SandboxPolicy.defaults().withLimits(100_000, 1.0, 100));

        assertThatThrownBy(() -> provider.create(big, Map.of("K", "v")))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST));

        assertThat(pod("agentbox-big")).isNull();
        assertThat(secret("agentbox-big-secrets")).isNull();
    }

    @Test
    void anImageOffTheAllowlistIsRefused() {
        assertThatThrownBy(() -> provider.create(input("img", "t").withImage("evil/image:1")))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.IMAGE_NOT_ALLOWED));
        assertThat(pod("agentbox-img")).isNull();
    }

    @Test
    void withoutAReachableHelperTheDataPathIsUnavailableAndSnapshotsAreUnsupported() {
        // Nothing listens on the helper port on loopback: the connection is refused at once.
        kubelet.behaviour = p -> FakeKubelet.readyAt("127.0.0.1");
        SandboxHandle sb = provider.create(input("data", "tenant-a"));

        for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call :
                List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
                        () -> sb.process().exec("true"),
                        () -> sb.process().spawn("true"),
                        () -> sb.fs().read("a.txt"),
                        () -> sb.fs().write("a.txt", "x"))) {
            assertThatThrownBy(call)
                    .isInstanceOfSatisfying(
                            ProblemException.class,
                            e -> {
                                assertThat(e.code()).isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE);
                                assertThat(e.getMessage()).contains("cannot be reached");
                            });
        }
        assertThatThrownBy(() -> sb.snapshot(java.util.Optional.empty()))
                .isInstanceOf(UnsupportedCapabilityException.class);
        assertThatThrownBy(sb::fork).isInstanceOf(UnsupportedCapabilityException.class);
    }

    @Test
    void aPortIsReachedAtThePodIpUnlessThePodsNetworkIsNone() {
        kubelet.behaviour = p -> FakeKubelet.readyAt("10.1.2.3");
        SandboxHandle bridged =
                provider.create(
                        input("ports-bridge", "tenant-a")
                                .withPolicy(
                                        SandboxPolicy.defaults()
                                                .withNetwork(SandboxPolicy.Network.BRIDGE)));
        assertThat(bridged.ports().address(3000))
                .isEqualTo(new java.net.InetSocketAddress("10.1.2.3", 3000));
        assertThat(bridged.ports().published(3000)).isEmpty();
        assertThatThrownBy(() -> bridged.ports().address(7070))
                .as("the helper's port is agentbox's channel, never proxied")
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.getMessage()).contains("reserved");
                        });

        SandboxHandle isolated = provider.create(input("ports-none", "tenant-a"));
        assertThatThrownBy(() -> isolated.ports().address(3000))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.UNSUPPORTED_CAPABILITY);
                            assertThat(e.getMessage()).contains("policy.network none");
                        });

        client.pods().inNamespace(NS).withName(bridged.id()).delete();
        assertThatThrownBy(() -> bridged.ports().address(3000))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.NOT_FOUND));
    }

    @Test
    void availableIsTrueWhileTheApiServerAnswers() {
        assertThat(provider.available()).isTrue();
    }
}
