package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pod of a sandbox as built, before any API server sees it. */
class SandboxPodSpecTest {

    private static final KubernetesSettings SETTINGS = KubernetesSettings.defaults();

    private static SandboxCreateInput input() {
        return SandboxCreateInput.defaults()
                .withRequestedId("s1")
                .withKey("k".repeat(64), "tenant-a")
                .withInstallation("install-1")
                .withEnv(Map.of("GREETING", "hello"));
    }

    private static Pod build(
            SandboxCreateInput input, KubernetesSettings settings, boolean secrets) {
        return SandboxPodSpec.build(
                "agentbox-s1",
                "agentbox/sandbox:bookworm",
                input,
                settings,
                secrets ? java.util.Set.of("TOKEN") : java.util.Set.of());
    }

    private static Container container(Pod pod) {
        return pod.getSpec().getContainers().get(0);
    }

    @Test
    void thePodCarriesTheDockerProvidersOwnershipLabels() {
        Pod pod = build(input(), SETTINGS, false);

        assertThat(pod.getMetadata().getLabels())
                .containsEntry(SandboxLabels.MANAGED, "true")
                .containsEntry(SandboxLabels.TENANT, "tenant-a")
                .containsEntry(SandboxLabels.INSTALLATION, "install-1")
                .containsKey(SandboxLabels.KEY)
                .containsEntry(SandboxObjects.SANDBOX, "agentbox-s1");
        assertThat(pod.getMetadata().getNamespace()).isEqualTo("agentbox-sandboxes");
    }

    @Test
    void requestsEqualLimitsFromThePolicyOrTheProviderDefaults() {
        Container byDefault = container(build(input(), SETTINGS, false));
        assertThat(byDefault.getResources().getLimits())
                .containsEntry("memory", new Quantity("2048Mi"))
                .containsEntry("cpu", new Quantity("1000m"));
        assertThat(byDefault.getResources().getRequests())
                .isEqualTo(byDefault.getResources().getLimits());

        Container sized =
                container(
                        build(
                                input().withPolicy(
                                                SandboxPolicy.defaults().withLimits(512, 0.5, 64)),
                                SETTINGS,
                                false));
        assertThat(sized.getResources().getLimits())
                .containsEntry("memory", new Quantity("512Mi"))
                .containsEntry("cpu", new Quantity("500m"));
    }

    @Test
    void aPolicyAboveTheProvidersCeilingIsAnInvalidRequest() {
        assertThatThrownBy(
                        () ->
                                build(
                                        input().withPolicy(
                                                        SandboxPolicy.defaults()
                                                                .withLimits(1024, 64.0, 64)),
                                        SETTINGS,
                                        false))
                .isInstanceOf(ProblemException.class)
                .hasMessageContaining("policy.cpus");
    }

    @Test
    void theSecurityContextIsLockedDown() {
        Pod pod = build(input(), SETTINGS, false);

        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSpec().getEnableServiceLinks()).isFalse();
        assertThat(pod.getSpec().getHostNetwork()).isFalse();
        assertThat(pod.getSpec().getHostPID()).isFalse();
        assertThat(pod.getSpec().getHostIPC()).isFalse();
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSpec().getSecurityContext().getRunAsUser()).isEqualTo(1000L);
        assertThat(pod.getSpec().getSecurityContext().getSeccompProfile().getType())
                .isEqualTo("RuntimeDefault");
        var sc = container(pod).getSecurityContext();
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getPrivileged()).isFalse();
        assertThat(sc.getRunAsNonRoot()).isTrue();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(sc.getReadOnlyRootFilesystem()).isFalse();
    }

    @Test
    void aReadOnlyRootKeepsWorkspaceAndTmpWritableOnVolumes() {
        Pod pod = build(input(), SETTINGS.withPods(SETTINGS.pods().withReadOnlyRoot(true)), false);

        assertThat(container(pod).getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(container(pod).getVolumeMounts())
                .extracting(m -> m.getMountPath() + (m.getReadOnly() ? ":ro" : ":rw"))
                .containsExactly(
                        "/workspace:rw",
                        "/tmp:rw",
                        "/run/agentbox/channel:ro",
                        "/opt/agentbox/bin:ro");
    }

    /** SC-15: the helper comes from the helper image, whatever the sandbox's image holds. */
    @Test
    void anInitContainerBringsTheHelperFromTheHelperImageLockedDownAsTheSandbox() {
        Pod pod = build(input(), SETTINGS, false);

        Container init = pod.getSpec().getInitContainers().get(0);
        assertThat(init.getImage()).isEqualTo("agentbox/sandbox:busybox");
        assertThat(init.getCommand())
                .containsExactly("cp", SandboxObjects.HELPER, "/helper-out/agentbox-sandboxd");
        assertThat(init.getSecurityContext()).isEqualTo(container(pod).getSecurityContext());
        assertThat(init.getVolumeMounts())
                .singleElement()
                .satisfies(m -> assertThat(m.getName()).isEqualTo(SandboxPodSpec.HELPER_VOLUME));
        assertThat(container(pod).getCommand().get(0)).isEqualTo(SandboxObjects.HELPER);
        assertThat(container(pod).getVolumeMounts())
                .anySatisfy(
                        m -> {
                            assertThat(m.getName()).isEqualTo(SandboxPodSpec.HELPER_VOLUME);
                            assertThat(m.getMountPath()).isEqualTo("/opt/agentbox/bin");
                            assertThat(m.getReadOnly()).isTrue();
                        });
    }

    @Test
    void theWorkspaceIsASizedEmptyDirAndTheCommandKeepsThePodAlive() {
        Pod pod = build(input(), SETTINGS, false);

        Volume workspace = pod.getSpec().getVolumes().get(0);
        assertThat(workspace.getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("10240Mi"));
        assertThat(container(pod).getWorkingDir()).isEqualTo("/workspace");
        assertThat(container(pod).getCommand())
                .as("the helper on the helper port, with the key file, keeps the pod alive")
                .containsExactly(
                        "/opt/agentbox/bin/agentbox-sandboxd",
                        "serve-tcp",
                        "7070",
                        "/run/agentbox/channel/key");
        assertThat(container(pod).getEnv())
                .singleElement()
                .satisfies(
                        e ->
                                assertThat(e.getName() + "=" + e.getValue())
                                        .isEqualTo("GREETING=hello"));
    }

    @Test
    void secretsAreTheSandboxsOwnSecretMountedReadOnlyWithoutTheChannelKey() {
        Pod pod = build(input(), SETTINGS, true);

        assertThat(pod.getSpec().getVolumes())
                .filteredOn(v -> v.getSecret() != null)
                .allSatisfy(
                        v -> {
                            assertThat(v.getSecret().getSecretName())
                                    .isEqualTo("agentbox-s1-secrets");
                            assertThat(v.getSecret().getDefaultMode()).isEqualTo(0400);
                        })
                .extracting(
                        v ->
                                v.getName()
                                        + ":"
                                        + v.getSecret().getItems().stream()
                                                .map(i -> i.getKey() + "=" + i.getPath())
                                                .toList())
                .containsExactly("channel-key:[agentbox-channel-key=key]", "secrets:[TOKEN=TOKEN]");
        assertThat(container(pod).getVolumeMounts())
                .filteredOn(m -> m.getMountPath().startsWith("/run/agentbox/"))
                .extracting(m -> m.getName() + " " + m.getMountPath() + " " + m.getReadOnly())
                .containsExactly(
                        "channel-key /run/agentbox/channel true",
                        "secrets /run/agentbox/secrets true");
        assertThat(build(input(), SETTINGS, false).getSpec().getVolumes())
                .filteredOn(v -> v.getSecret() != null)
                .extracting(Volume::getName)
                .as("without secrets, only the key")
                .containsExactly("channel-key");
    }

    @Test
    void thePodIsReadyOnceItsHelperAcceptsConnectionsOnTheHelperPort() {
        Container c = container(build(input(), SETTINGS, false));
        assertThat(c.getReadinessProbe().getTcpSocket().getPort().getIntVal()).isEqualTo(7070);
        assertThat(c.getPorts())
                .singleElement()
                .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(7070));
    }

    @Test
    void schedulingSettingsReachTheSpec() {
        KubernetesSettings scheduled =
                SETTINGS.withPods(
                        SETTINGS.pods()
                                .withScheduling(
                                        Optional.of("gvisor"),
                                        Map.of("pool", "sandboxes"),
                                        List.of("sandbox=true:NoSchedule", "dedicated:NoExecute")));

        Pod pod = build(input(), scheduled, false);

        assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(pod.getSpec().getNodeSelector()).containsExactly(Map.entry("pool", "sandboxes"));
        assertThat(pod.getSpec().getTolerations())
                .extracting(
                        Toleration::getKey,
                        Toleration::getOperator,
                        Toleration::getValue,
                        Toleration::getEffect)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "sandbox", "Equal", "true", "NoSchedule"),
                        org.assertj.core.groups.Tuple.tuple(
                                "dedicated", "Exists", null, "NoExecute"));
        assertThat(build(input(), SETTINGS, false).getSpec().getRuntimeClassName()).isNull();
    }

    @Test
    void podNamesAreValidDnsLabelsAndDistinctForDistinctIds() {
        String a = SandboxObjects.podName("Tenant/Key:" + "x".repeat(100));
        String b = SandboxObjects.podName("Tenant/Key:" + "x".repeat(99) + "y");

        assertThat(a).matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?").isNotEqualTo(b);
        assertThat(SandboxObjects.podName("s1")).isEqualTo("agentbox-s1");
    }

    /** EG-11: an egress pod's way out and its only resolver are the gateway's Service address. */
    @Test
    void anEgressPodsProxyAndOnlyDnsServerAreTheGatewayAndItKeepsItsRules() {
        SandboxCreateInput egress =
                input().withPolicy(
                                SandboxPolicy.defaults()
                                        .withNetwork(SandboxPolicy.Network.EGRESS)
                                        .withEgress(
                                                new EgressPolicy(
                                                        List.of(EgressRule.host("api.example.com")),
                                                        List.of())));
        Pod pod =
                SandboxPodSpec.build(
                        "agentbox-s1",
                        "agentbox/sandbox:bookworm",
                        egress,
                        SETTINGS,
                        Set.of(),
                        Optional.of("10.96.7.7"));

        Map<String, String> env = new HashMap<>();
        container(pod).getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
        assertThat(env)
                .containsEntry("GREETING", "hello")
                .containsEntry("HTTPS_PROXY", "http://10.96.7.7:3128")
                .containsEntry("http_proxy", "http://10.96.7.7:3128")
                .containsEntry("NO_PROXY", "localhost,127.0.0.1,::1")
                .containsEntry("SSL_CERT_FILE", PodEgress.POD_BUNDLE)
                .containsEntry("NODE_EXTRA_CA_CERTS", PodEgress.POD_CA);
        assertThat(pod.getSpec().getDnsPolicy()).isEqualTo("None");
        assertThat(pod.getSpec().getDnsConfig().getNameservers()).containsExactly("10.96.7.7");
        assertThat(EgressLabel.parse(pod.getMetadata().getAnnotations().get(SandboxObjects.EGRESS)))
                .isEqualTo(egress.policy().egress());
        assertThat(pod.getMetadata().getLabels()).containsEntry(SandboxObjects.NETWORK, "egress");

        Pod plain = build(input(), SETTINGS, false);
        assertThat(plain.getSpec().getDnsPolicy()).isNull();
        assertThat(plain.getMetadata().getAnnotations()).doesNotContainKey(SandboxObjects.EGRESS);
        assertThat(container(plain).getEnv()).noneMatch(e -> e.getName().contains("PROXY"));
    }
}
