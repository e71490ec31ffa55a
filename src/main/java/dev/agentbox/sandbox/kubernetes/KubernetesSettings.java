package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.spi.ImageAllowlist;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * Configuration of the Kubernetes provider (MicroProfile Config keys in brackets, all documented in
 * docs/operations.md).
 *
 * @param enabled [agentbox.providers.kubernetes.enabled] default false
 * @param namespace [agentbox.kubernetes.namespace] where sandbox pods, their Secrets and
 *     NetworkPolicies live; default agentbox-sandboxes
 * @param credentials how the client finds the API server
 * @param image [agentbox.kubernetes.image] default image, default agentbox/sandbox:bookworm
 * @param images [agentbox.kubernetes.images] exact repo:tag names an ensure may ask for; unset =
 *     the default image, its BusyBox twin and the agents image
 * @param readyTimeout [agentbox.kubernetes.ready-timeout-ms] how long a create waits for its pod to
 *     be ready before it deletes it; default 120000
 * @param pods what every pod gets: scheduling, identity, limits
 * @param network the NetworkPolicy parameters
 */
public record KubernetesSettings(
        boolean enabled,
        String namespace,
        Credentials credentials,
        String image,
        ImageAllowlist images,
        Duration readyTimeout,
        Pods pods,
        Network network) {

    /**
     * How the client reaches the API server.
     *
     * @param inCluster [agentbox.kubernetes.credentials] {@code in-cluster} (default: the pod's
     *     service account, through fabric8's auto-configuration) or {@code kubeconfig}
     * @param kubeconfig [agentbox.kubernetes.kubeconfig] the kubeconfig file; unset = fabric8's
     *     default lookup ($KUBECONFIG, ~/.kube/config)
     * @param context [agentbox.kubernetes.context] the kubeconfig context; unset = its current one
     */
    public record Credentials(
            boolean inCluster, Optional<String> kubeconfig, Optional<String> context) {

        public static Credentials inClusterDefaults() {
            return new Credentials(true, Optional.empty(), Optional.empty());
        }
    }

    /**
     * What every sandbox pod gets besides its policy.
     *
     * @param runtimeClassName [agentbox.kubernetes.runtime-class-name] e.g. gvisor or kata; unset =
     *     the cluster's default runtime
     * @param nodeSelector [agentbox.kubernetes.node-selector] {@code key=value,…}; default none
     * @param tolerations [agentbox.kubernetes.tolerations] {@code key=value:Effect} or {@code
     *     key:Effect} (exists), comma-separated; default none
     * @param runAsUser [agentbox.kubernetes.run-as-user] uid and gid of the sandbox's processes,
     *     never 0; default 1000 (the {@code agent} user of the agents image)
     * @param readOnlyRoot [agentbox.kubernetes.read-only-root] read-only root filesystem with
     *     /workspace and /tmp on emptyDir volumes; default false, as for Docker
     * @param workspaceSizeMb [agentbox.kubernetes.workspace-size-mb] size limit of the workspace
     *     volume; default 10240
     * @param defaultMemoryMb [agentbox.kubernetes.default-memory-mb] default 2048
     * @param defaultCpus [agentbox.kubernetes.default-cpus] default 1.0
     * @param maxMemoryMb [agentbox.kubernetes.max-memory-mb] the most a policy may ask of this
     *     provider; default 8192
     * @param maxCpus [agentbox.kubernetes.max-cpus] default 4.0
     * @param helperImage [agentbox.kubernetes.helper-image] the image an init container copies the
     *     in-sandbox helper (a static binary) from into every pod, so a sandbox image need not
     *     carry it; default agentbox/sandbox:busybox
     */
    public record Pods(
            Optional<String> runtimeClassName,
            Map<String, String> nodeSelector,
            List<String> tolerations,
            long runAsUser,
            boolean readOnlyRoot,
            int workspaceSizeMb,
            int defaultMemoryMb,
            double defaultCpus,
            int maxMemoryMb,
            double maxCpus,
            String helperImage) {

        public Pods {
            nodeSelector = Map.copyOf(nodeSelector);
            tolerations = List.copyOf(tolerations);
            // parsed once here so that a malformed one stops the start-up, not the first create
            tolerations.forEach(SandboxPodSpec::toleration);
            if (runAsUser < 1) {
                throw new IllegalArgumentException(
                        "agentbox.kubernetes.run-as-user must not be root (0): " + runAsUser);
            }
            if (defaultMemoryMb > maxMemoryMb || defaultCpus > maxCpus) {
                throw new IllegalArgumentException(
                        "agentbox.kubernetes.default-* must not exceed agentbox.kubernetes.max-*");
            }
        }

        public static Pods defaults() {
            return new Pods(
                    Optional.empty(),
                    Map.of(),
                    List.of(),
                    1000,
                    false,
                    10240,
                    2048,
                    1.0,
                    8192,
                    4.0,
                    "agentbox/sandbox:busybox");
        }

        public Pods withReadOnlyRoot(boolean r) {
            return new Pods(
                    runtimeClassName,
                    nodeSelector,
                    tolerations,
                    runAsUser,
                    r,
                    workspaceSizeMb,
                    defaultMemoryMb,
                    defaultCpus,
                    maxMemoryMb,
                    maxCpus,
                    helperImage);
        }

        public Pods withScheduling(
                Optional<String> runtimeClass, Map<String, String> nodes, List<String> tolerate) {
            return new Pods(
                    runtimeClass,
                    nodes,
                    tolerate,
                    runAsUser,
                    readOnlyRoot,
                    workspaceSizeMb,
                    defaultMemoryMb,
                    defaultCpus,
                    maxMemoryMb,
                    maxCpus,
                    helperImage);
        }
    }

    /**
     * Who may talk to a sandbox pod and where it may go.
     *
     * @param replicaNamespace [agentbox.kubernetes.replica-namespace] the namespace agentbox's own
     *     pods run in; default agentbox
     * @param replicaSelector [agentbox.kubernetes.replica-selector] their labels, {@code
     *     key=value,…}; default app.kubernetes.io/name=agentbox
     * @param helperPort [agentbox.kubernetes.helper-port] the in-sandbox helper's TCP port, the one
     *     port a {@code none} sandbox accepts connections on; default 7070
     * @param gatewayNamespace [agentbox.kubernetes.egress.gateway-namespace] where the egress
     *     gateway runs; default the sandbox namespace
     * @param gatewaySelector [agentbox.kubernetes.egress.gateway-selector] its pods' labels;
     *     default app.kubernetes.io/name=agentbox-egress
     * @param gatewayPorts [agentbox.kubernetes.egress.gateway-ports] the ports an {@code egress}
     *     sandbox may open to it (proxy and DNS); default 3128,53
     * @param bridgeBlockedCidrs [agentbox.kubernetes.bridge-blocked-cidrs] destinations a {@code
     *     bridge} sandbox may not reach: cluster, private and link-local (cloud metadata) ranges by
     *     default
     * @param egressEnabled [agentbox.kubernetes.egress.enabled] whether an egress gateway is
     *     deployed (deploy/kubernetes/egress-gateway.yaml), so that {@code network: egress} is
     *     served; default false: such an ensure is {@code 422 unsupported-capability}
     * @param gatewayService [agentbox.kubernetes.egress.gateway-service] the gateway's Service, in
     *     the gateway namespace: its cluster IP is the proxy and the DNS server of egress
     *     sandboxes; default agentbox-egress
     * @param gatewayKeySecret [agentbox.kubernetes.egress.gateway-key-secret] the Secret, in the
     *     gateway namespace, whose item {@code agentbox-channel-key} (32 random bytes) is the key
     *     of the gateway pods' helper; default agentbox-egress-channel
     */
    public record Network(
            String replicaNamespace,
            Map<String, String> replicaSelector,
            int helperPort,
            Optional<String> gatewayNamespace,
            Map<String, String> gatewaySelector,
            List<Integer> gatewayPorts,
            List<String> bridgeBlockedCidrs,
            boolean egressEnabled,
            String gatewayService,
            String gatewayKeySecret) {

        public Network {
            replicaSelector = Map.copyOf(replicaSelector);
            gatewaySelector = Map.copyOf(gatewaySelector);
            gatewayPorts = List.copyOf(gatewayPorts);
            bridgeBlockedCidrs = List.copyOf(bridgeBlockedCidrs);
            if (replicaSelector.isEmpty() || gatewaySelector.isEmpty()) {
                // an empty selector would select every pod of the namespace
                throw new IllegalArgumentException(
                        "agentbox.kubernetes.replica-selector and"
                                + " agentbox.kubernetes.egress.gateway-selector must not be empty");
            }
        }

        public static Network defaults() {
            return new Network(
                    "agentbox",
                    Map.of("app.kubernetes.io/name", "agentbox"),
                    7070,
                    Optional.empty(),
                    Map.of("app.kubernetes.io/name", "agentbox-egress"),
                    List.of(3128, 53),
                    List.of(
                            "10.0.0.0/8",
                            "172.16.0.0/12",
                            "192.168.0.0/16",
                            "100.64.0.0/10",
                            "169.254.0.0/16"),
                    false,
                    "agentbox-egress",
                    "agentbox-egress-channel");
        }

        /** As this, with the helper on {@code port}. */
        public Network withHelperPort(int port) {
            return new Network(
                    replicaNamespace,
                    replicaSelector,
                    port,
                    gatewayNamespace,
                    gatewaySelector,
                    gatewayPorts,
                    bridgeBlockedCidrs,
                    egressEnabled,
                    gatewayService,
                    gatewayKeySecret);
        }

        /** As this, with an egress gateway deployed ({@code true}) or not. */
        public Network withEgress(boolean enabled) {
            return new Network(
                    replicaNamespace,
                    replicaSelector,
                    helperPort,
                    gatewayNamespace,
                    gatewaySelector,
                    gatewayPorts,
                    bridgeBlockedCidrs,
                    enabled,
                    gatewayService,
                    gatewayKeySecret);
        }
    }

    public KubernetesSettings {
        if (readyTimeout.isNegative() || readyTimeout.isZero()) {
            throw new IllegalArgumentException(
                    "agentbox.kubernetes.ready-timeout-ms must be positive");
        }
    }

    public static KubernetesSettings defaults() {
        return new KubernetesSettings(
                false,
                "agentbox-sandboxes",
                Credentials.inClusterDefaults(),
                ImageAllowlist.DEFAULT_IMAGE,
                ImageAllowlist.defaults(),
                Duration.ofMinutes(2),
                Pods.defaults(),
                Network.defaults());
    }

    public static KubernetesSettings fromConfig(Config c) {
        KubernetesSettings d = defaults();
        String image = string(c, "agentbox.kubernetes.image").orElse(d.image());
        String credentials = string(c, "agentbox.kubernetes.credentials").orElse("in-cluster");
        if (!credentials.equals("in-cluster") && !credentials.equals("kubeconfig")) {
            throw new IllegalArgumentException(
                    "agentbox.kubernetes.credentials must be in-cluster or kubeconfig: "
                            + credentials);
        }
        Pods p = d.pods();
        Network n = d.network();
        return new KubernetesSettings(
                c.getOptionalValue("agentbox.providers.kubernetes.enabled", Boolean.class)
                        .orElse(d.enabled()),
                string(c, "agentbox.kubernetes.namespace").orElse(d.namespace()),
                new Credentials(
                        credentials.equals("in-cluster"),
                        string(c, "agentbox.kubernetes.kubeconfig"),
                        string(c, "agentbox.kubernetes.context")),
                image,
                ImageAllowlist.of(
                        image,
                        string(c, "agentbox.kubernetes.images").map(KubernetesSettings::list)),
                c.getOptionalValue("agentbox.kubernetes.ready-timeout-ms", Long.class)
                        .map(Duration::ofMillis)
                        .orElse(d.readyTimeout()),
                new Pods(
                        string(c, "agentbox.kubernetes.runtime-class-name"),
                        string(c, "agentbox.kubernetes.node-selector")
                                .map(KubernetesSettings::pairs)
                                .orElse(p.nodeSelector()),
                        string(c, "agentbox.kubernetes.tolerations")
                                .map(KubernetesSettings::list)
                                .orElse(p.tolerations()),
                        c.getOptionalValue("agentbox.kubernetes.run-as-user", Long.class)
                                .orElse(p.runAsUser()),
                        c.getOptionalValue("agentbox.kubernetes.read-only-root", Boolean.class)
                                .orElse(p.readOnlyRoot()),
                        c.getOptionalValue("agentbox.kubernetes.workspace-size-mb", Integer.class)
                                .orElse(p.workspaceSizeMb()),
                        c.getOptionalValue("agentbox.kubernetes.default-memory-mb", Integer.class)
                                .orElse(p.defaultMemoryMb()),
                        c.getOptionalValue("agentbox.kubernetes.default-cpus", Double.class)
                                .orElse(p.defaultCpus()),
                        c.getOptionalValue("agentbox.kubernetes.max-memory-mb", Integer.class)
                                .orElse(p.maxMemoryMb()),
                        c.getOptionalValue("agentbox.kubernetes.max-cpus", Double.class)
                                .orElse(p.maxCpus()),
                        string(c, "agentbox.kubernetes.helper-image").orElse(p.helperImage())),
                new Network(
                        string(c, "agentbox.kubernetes.replica-namespace")
                                .orElse(n.replicaNamespace()),
                        string(c, "agentbox.kubernetes.replica-selector")
                                .map(KubernetesSettings::pairs)
                                .orElse(n.replicaSelector()),
                        c.getOptionalValue("agentbox.kubernetes.helper-port", Integer.class)
                                .orElse(n.helperPort()),
                        string(c, "agentbox.kubernetes.egress.gateway-namespace"),
                        string(c, "agentbox.kubernetes.egress.gateway-selector")
                                .map(KubernetesSettings::pairs)
                                .orElse(n.gatewaySelector()),
                        string(c, "agentbox.kubernetes.egress.gateway-ports")
                                .map(v -> list(v).stream().map(Integer::valueOf).toList())
                                .orElse(n.gatewayPorts()),
                        string(c, "agentbox.kubernetes.bridge-blocked-cidrs")
                                .map(KubernetesSettings::list)
                                .orElse(n.bridgeBlockedCidrs()),
                        c.getOptionalValue("agentbox.kubernetes.egress.enabled", Boolean.class)
                                .orElse(n.egressEnabled()),
                        string(c, "agentbox.kubernetes.egress.gateway-service")
                                .orElse(n.gatewayService()),
                        string(c, "agentbox.kubernetes.egress.gateway-key-secret")
                                .orElse(n.gatewayKeySecret())));
    }

    public KubernetesSettings withEnabled(boolean on) {
        return new KubernetesSettings(
                on, namespace, credentials, image, images, readyTimeout, pods, network);
    }

    public KubernetesSettings withPods(Pods p) {
        return new KubernetesSettings(
                enabled, namespace, credentials, image, images, readyTimeout, p, network);
    }

    public KubernetesSettings withNetwork(Network n) {
        return new KubernetesSettings(
                enabled, namespace, credentials, image, images, readyTimeout, pods, n);
    }

    public KubernetesSettings withReadyTimeout(Duration t) {
        return new KubernetesSettings(
                enabled, namespace, credentials, image, images, t, pods, network);
    }

    /** As this, with {@code i} as the default image (and the only one a caller may name). */
    public KubernetesSettings withImage(String i) {
        return new KubernetesSettings(
                enabled,
                namespace,
                credentials,
                i,
                ImageAllowlist.of(i, Optional.of(List.of(i))),
                readyTimeout,
                pods,
                network);
    }

    public KubernetesSettings withNamespace(String ns) {
        return new KubernetesSettings(
                enabled, ns, credentials, image, images, readyTimeout, pods, network);
    }

    /** The namespace of the egress gateway's pods. */
    String gatewayNamespace() {
        return network.gatewayNamespace().orElse(namespace);
    }

    private static Optional<String> string(Config c, String key) {
        return c.getOptionalValue(key, String.class).map(String::strip).filter(s -> !s.isEmpty());
    }

    private static List<String> list(String v) {
        return Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** {@code k=v,k2=v2} as a map; an entry without {@code =} is a startup error. */
    static Map<String, String> pairs(String v) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String entry : list(v)) {
            int eq = entry.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("expected key=value, got \"" + entry + "\"");
            }
            m.put(entry.substring(0, eq).strip(), entry.substring(eq + 1).strip());
        }
        return m;
    }
}
