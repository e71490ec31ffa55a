package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.egress.ProxyEnv;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodDNSConfigBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The pod of a new sandbox, built from its create input and the provider's settings; nothing here
 * talks to the API server.
 *
 * <p>Invariants of every pod it builds:
 *
 * <ul>
 *   <li>No credentials of its own: {@code automountServiceAccountToken: false}, no service links.
 *   <li>Locked down: non-root ({@link KubernetesSettings.Pods#runAsUser()}), {@code
 *       allowPrivilegeEscalation: false}, every capability dropped, RuntimeDefault seccomp, not
 *       privileged, no host namespaces; a read-only root when configured, as for Docker.
 *   <li>Memory and CPU requests equal their limits (policy, else the provider's defaults), so a
 *       sandbox is never evicted for using what it was promised; a policy above the provider's
 *       ceilings is refused here, before anything is created.
 *   <li>The workspace is an emptyDir at {@link #WORKSPACE}; the tenant's secrets, when there are
 *       any, are the sandbox's own Secret mounted read-only at {@link
 *       SandboxObjects#SECRETS_MOUNT}, without the channel key.
 *   <li>The container runs the helper, {@code agentbox-sandboxd serve-tcp} on the helper port, with
 *       the channel key item of the same Secret, alone, at {@link SandboxObjects#CHANNEL_KEY_FILE};
 *       it is ready only once the helper accepts connections.
 *   <li>The helper is never missing: an init container copies it (a static binary) from the
 *       provider's helper image into a volume mounted read-only over {@code /opt/agentbox/bin}
 *       (where the tool bridge's relay is found too), so any image runs, whether it carries the
 *       helper, an older one, or none.
 *   <li>An {@code egress} pod ({@code gateway} given) has the gateway's Service address as its
 *       proxy (the proxy variables of {@link ProxyEnv}) and as its only DNS server ({@code
 *       dnsPolicy: None}), and its rules in the annotation {@link SandboxObjects#EGRESS}, from
 *       which a replica writes them again into a gateway pod that lost them ({@link PodEgress}).
 * </ul>
 */
final class SandboxPodSpec {

    static final String WORKSPACE = "/workspace";
    static final String CONTAINER = "sandbox";

    /** The volume, and init container, that bring the helper into the pod. */
    static final String HELPER_VOLUME = "agentbox-helper";

    /** Where the sandbox container finds the helper ({@link SandboxObjects#HELPER}'s folder). */
    static final String HELPER_DIR =
            SandboxObjects.HELPER.substring(0, SandboxObjects.HELPER.lastIndexOf('/'));

    private static final Map<String, Quantity> HELPER_RESOURCES =
            Map.of("memory", new Quantity("32Mi"), "cpu", new Quantity("100m"));

    private SandboxPodSpec() {}

    /**
     * The pod {@code name} for {@code input} from {@code image} (already vetted), mounting the
     * items {@code secretNames} of its Secret ({@link SandboxObjects#secretName}) as files.
     */
    static Pod build(
            String name,
            String image,
            SandboxCreateInput input,
            KubernetesSettings settings,
            Set<String> secretNames) {
        return build(name, image, input, settings, secretNames, Optional.empty());
    }

    /**
     * As {@link #build(String, String, SandboxCreateInput, KubernetesSettings, Set)}, for a pod
     * whose way out is the egress gateway at {@code gateway} (its Service's cluster IP) when given.
     */
    static Pod build(
            String name,
            String image,
            SandboxCreateInput input,
            KubernetesSettings settings,
            Set<String> secretNames,
            Optional<String> gateway) {
        KubernetesSettings.Pods pods = settings.pods();
        SandboxPolicy policy = input.policy();
        int memoryMb = policy.memoryMb().orElse(pods.defaultMemoryMb());
        double cpus = policy.cpus().orElse(pods.defaultCpus());
        checkCeilings(memoryMb, cpus, pods);
        Map<String, Quantity> resources =
                Map.of(
                        "memory", new Quantity(memoryMb + "Mi"),
                        "cpu", new Quantity(Math.round(cpus * 1000) + "m"));

        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> mounts = new ArrayList<>();
        volumes.add(emptyDir("workspace", pods.workspaceSizeMb() + "Mi"));
        mounts.add(mount("workspace", WORKSPACE, false));
        if (pods.readOnlyRoot()) {
            volumes.add(emptyDir("tmp", null));
            mounts.add(mount("tmp", "/tmp", false));
        }
        // The key and the tenant's secrets are items of one Secret, mounted apart: the key is
        // no file under the secrets folder that setup steps and agents read.
        volumes.add(
                secretItems("channel-key", name, Map.of(SandboxObjects.CHANNEL_KEY_ITEM, "key")));
        mounts.add(mount("channel-key", SandboxObjects.CHANNEL_KEY_MOUNT, true));
        if (!secretNames.isEmpty()) {
            Map<String, String> items = new TreeMap<>();
            secretNames.forEach(s -> items.put(s, s));
            volumes.add(secretItems("secrets", name, items));
            mounts.add(mount("secrets", SandboxObjects.SECRETS_MOUNT, true));
        }
        int helperPort = settings.network().helperPort();
        volumes.add(emptyDir(HELPER_VOLUME, null));
        mounts.add(mount(HELPER_VOLUME, HELPER_DIR, true));

        Container container =
                new ContainerBuilder()
                        .withName(CONTAINER)
                        .withImage(image)
                        .withImagePullPolicy("IfNotPresent")
                        .withCommand(
                                SandboxObjects.HELPER,
                                "serve-tcp",
                                Integer.toString(helperPort),
                                SandboxObjects.CHANNEL_KEY_FILE)
                        .addNewPort()
                        .withName("sandboxd")
                        .withContainerPort(helperPort)
                        .withProtocol("TCP")
                        .endPort()
                        // Ready = the helper accepts connections: a create returns a sandbox
                        // whose data path answers. (The probe's connection gets the challenge
                        // and closes; the helper serves it nothing.)
                        .withNewReadinessProbe()
                        .withNewTcpSocket()
                        .withNewPort(helperPort)
                        .endTcpSocket()
                        .withPeriodSeconds(2)
                        .endReadinessProbe()
                        .withWorkingDir(WORKSPACE)
                        .withEnv(env(input, gateway))
                        .withNewResources()
                        .withRequests(resources)
                        .withLimits(resources)
                        .endResources()
                        .withNewSecurityContext()
                        .withPrivileged(false)
                        .withAllowPrivilegeEscalation(false)
                        .withRunAsNonRoot(true)
                        .withReadOnlyRootFilesystem(pods.readOnlyRoot())
                        .withNewCapabilities()
                        .withDrop("ALL")
                        .endCapabilities()
                        .withNewSeccompProfile()
                        .withType("RuntimeDefault")
                        .endSeccompProfile()
                        .endSecurityContext()
                        .withVolumeMounts(mounts)
                        .build();

        Map<String, String> labels =
                new java.util.LinkedHashMap<>(SandboxObjects.labels(name, input));
        labels.put(SandboxObjects.NETWORK, policy.network().name().toLowerCase(Locale.ROOT));
        Map<String, String> annotations = new LinkedHashMap<>(SandboxObjects.annotations(input));
        if (gateway.isPresent()) {
            annotations.put(SandboxObjects.EGRESS, EgressLabel.of(policy.egress()));
        }
        Container helper =
                new ContainerBuilder()
                        .withName(HELPER_VOLUME)
                        .withImage(pods.helperImage())
                        .withImagePullPolicy("IfNotPresent")
                        .withCommand("cp", SandboxObjects.HELPER, "/helper-out/agentbox-sandboxd")
                        .withNewResources()
                        .withRequests(HELPER_RESOURCES)
                        .withLimits(HELPER_RESOURCES)
                        .endResources()
                        .withSecurityContext(container.getSecurityContext())
                        .withVolumeMounts(mount(HELPER_VOLUME, "/helper-out", false))
                        .build();
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(settings.namespace())
                .withLabels(labels)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                // an egress pod asks only its gateway, which answers only the names it may reach
                .withDnsPolicy(gateway.isPresent() ? "None" : null)
                .withDnsConfig(
                        gateway.map(
                                        g ->
                                                new PodDNSConfigBuilder()
                                                        .withNameservers(g)
                                                        .addNewOption()
                                                        .withName("ndots")
                                                        .withValue("1")
                                                        .endOption()
                                                        .build())
                                .orElse(null))
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withHostNetwork(false)
                .withHostPID(false)
                .withHostIPC(false)
                .withRestartPolicy("Always")
                .withRuntimeClassName(pods.runtimeClassName().orElse(null))
                .withNodeSelector(pods.nodeSelector().isEmpty() ? null : pods.nodeSelector())
                .withTolerations(
                        pods.tolerations().stream().map(SandboxPodSpec::toleration).toList())
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withRunAsUser(pods.runAsUser())
                .withRunAsGroup(pods.runAsUser())
                .withFsGroup(pods.runAsUser())
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .withInitContainers(helper)
                .withContainers(container)
                .withVolumes(volumes)
                .endSpec()
                .build();
    }

    /** The pod's variables: the input's, and an egress pod's proxy variables after them. */
    private static List<EnvVar> env(SandboxCreateInput input, Optional<String> gateway) {
        Map<String, String> env = new LinkedHashMap<>(input.env());
        gateway.ifPresent(
                g -> {
                    env.putAll(ProxyEnv.of(PodEgress.proxyUrl(g)));
                    env.putAll(PodEgress.TRUST_ENV);
                });
        return env.entrySet().stream()
                .map(e -> new EnvVar(e.getKey(), e.getValue(), null))
                .toList();
    }

    private static void checkCeilings(int memoryMb, double cpus, KubernetesSettings.Pods pods) {
        if (memoryMb > pods.maxMemoryMb()) {
            throw ProblemException.invalidRequest(
                    "policy.memoryMb "
                            + memoryMb
                            + " is above this provider's ceiling of "
                            + pods.maxMemoryMb());
        }
        if (cpus > pods.maxCpus()) {
            throw ProblemException.invalidRequest(
                    "policy.cpus "
                            + cpus
                            + " is above this provider's ceiling of "
                            + pods.maxCpus());
        }
    }

    /**
     * {@code key=value:Effect} (equal) or {@code key:Effect} (exists), as {@code kubectl taint}.
     */
    static Toleration toleration(String spec) {
        int colon = spec.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException(
                    "agentbox.kubernetes.tolerations: expected key[=value]:Effect, got \""
                            + spec
                            + "\"");
        }
        String effect = spec.substring(colon + 1);
        String keyValue = spec.substring(0, colon);
        int eq = keyValue.indexOf('=');
        TolerationBuilder t = new TolerationBuilder().withEffect(effect);
        if (eq < 0) {
            return t.withKey(keyValue).withOperator("Exists").build();
        }
        return t.withKey(keyValue.substring(0, eq))
                .withOperator("Equal")
                .withValue(keyValue.substring(eq + 1))
                .build();
    }

    /** The Secret of pod {@code name}, only {@code items} (item → file name), mode 0400. */
    private static Volume secretItems(String volume, String name, Map<String, String> items) {
        return new VolumeBuilder()
                .withName(volume)
                .withNewSecret()
                .withSecretName(SandboxObjects.secretName(name))
                .withItems(
                        items.entrySet().stream()
                                .map(
                                        e ->
                                                new KeyToPathBuilder()
                                                        .withKey(e.getKey())
                                                        .withPath(e.getValue())
                                                        .build())
                                .toList())
                .withDefaultMode(0400)
                .withOptional(false)
                .endSecret()
                .build();
    }

    private static Volume emptyDir(String name, String sizeLimit) {
        return new VolumeBuilder()
                .withName(name)
                .withNewEmptyDir()
                .withSizeLimit(sizeLimit == null ? null : new Quantity(sizeLimit))
                .endEmptyDir()
                .build();
    }

    private static VolumeMount mount(String volume, String path, boolean readOnly) {
        return new VolumeMountBuilder()
                .withName(volume)
                .withMountPath(path)
                .withReadOnly(readOnly)
                .build();
    }
}
