package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelKey;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.channel.TcpEndpoint;
import dev.agentbox.sandbox.datapath.CapturedExec;
import dev.agentbox.sandbox.datapath.ChannelCall;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.egress.GatewayRules;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.SandboxLabels;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The egress gateway of {@code network: egress} pods (docs/kubernetes.md, "Egress"): the pods of a
 * Deployment of the gateway image (Squid and dnsmasq, as on Docker) behind a Service, each also
 * running the sandbox helper, through which replicas write the sandboxes' rules into it.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>An egress pod's proxy and DNS server is the Service's cluster IP ({@link #address}); its
 *       NetworkPolicy lets it reach nothing but the gateway's pods ({@link SandboxNetworkPolicy}).
 *   <li>Rules are keyed by the pod's IP, so one tenant's pods never get another's: a pod's create
 *       returns only after every ready gateway pod holds its rules ({@link #apply}); a gateway pod
 *       that cannot take them fails the create. A destroyed pod's rules are removed only while they
 *       still name it ({@link #release}): its IP may already be another pod's.
 *   <li>A gateway pod that is new to this replica (a new pod, or a container that restarted and
 *       lost its files) first gets the operator's files (pinned names, upstream trust) and, once
 *       per container, the rules of every running egress pod where it has none, from the pods'
 *       {@link SandboxObjects#EGRESS} annotation ({@link #seed}). Where rules exist, or are being
 *       written by a create, they are left alone: a newer pod at a reused IP keeps its own.
 *   <li>The helper of a gateway pod opens only with the key of the gateway's Secret ({@code
 *       agentbox.kubernetes.egress.gateway-key-secret}), which no sandbox pod mounts.
 * </ul>
 *
 * Brokered secrets and the refusal audit are not served for pods yet: the defaults of {@link
 * dev.agentbox.sandbox.spi.SandboxHandle} refuse the one and report none of the other.
 */
final class PodEgress {

    static final int PROXY_PORT = 3128;
    static final String KEY_ITEM = SandboxObjects.CHANNEL_KEY_ITEM;
    private static final String CONF = "/etc/agentbox-egress";
    private static final String SANDBOXES = CONF + "/sandboxes";

    /** In a gateway container once a replica restored the running pods' rules into it. */
    private static final String RESTORED = SANDBOXES + "/.restored";

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Logger LOG = Logger.getLogger(PodEgress.class.getName());

    /** A sandbox's files, in its stem's place: new rules, then the gateway takes them. */
    private static final String WRITE =
            "d="
                    + SANDBOXES
                    + " && printf '%s' \"$AGENTBOX_RULES\" > \"$d/$1.rules.next\""
                    + " && printf '%s' \"$AGENTBOX_DNS\" > \"$d/$1.dns\""
                    + " && exec agentbox-egress reload \"$1\"";

    /** A running pod's files, only where the gateway has none and none are being written. */
    private static final String RESTORE =
            "d="
                    + SANDBOXES
                    + "; exec 9>/run/agentbox-egress.lock && flock 9"
                    + " && { [ -e \"$d/$1.rules\" ] || [ -e \"$d/$1.rules.next\" ] && exit 0; }"
                    + "; printf '%s' \"$AGENTBOX_DNS\" > \"$d/$1.dns\""
                    + " && printf '%s' \"$AGENTBOX_RULES\" > \"$d/$1.rules\"";

    /** Removes a sandbox's files while their first line still names it. */
    private static final String RELEASE =
            "d="
                    + SANDBOXES
                    + "; if head -n 1 \"$d/$1.rules\" 2>/dev/null | grep -qxF \"$2\"; then"
                    + " rm -f \"$d/$1.rules\" \"$d/$1.dns\" \"/run/agentbox-egress/denied/$1\""
                    + " \"/run/agentbox-egress/secrets/$1\" && exec agentbox-egress reload; fi";

    /** The operator's files, then the gateway takes those that changed. */
    private static final String CONFIGURE =
            "printf '%s' \"$AGENTBOX_HOSTS\" > "
                    + CONF
                    + "/hosts.next"
                    + " && printf '%s' \"$AGENTBOX_RESOLVED\" > "
                    + CONF
                    + "/resolved.conf.next"
                    + " && printf '%s' \"$AGENTBOX_TLS\" > "
                    + CONF
                    + "/tls.conf.next"
                    + " && if [ -n \"$AGENTBOX_UPSTREAM_CA\" ]; then printf '%s' \"$AGENTBOX_UPSTREAM_CA\" > "
                    + CONF
                    + "/upstream-ca.pem.next; fi"
                    + " && exec agentbox-egress configure";

    /** A gateway pod as a replica reaches it. */
    record GatewayPod(String name, String ip, String generation) {}

    private record Known(String generation, SandboxChannel channel) {}

    private final KubernetesSandboxProvider provider;
    private final EgressSettings settings;
    private final Map<String, Known> channels = new ConcurrentHashMap<>();

    /** Gateway containers ({@link GatewayPod#generation}) this replica has seeded. */
    private final Set<String> seeded = ConcurrentHashMap.newKeySet();

    PodEgress(KubernetesSandboxProvider provider, EgressSettings settings) {
        this.provider = provider;
        this.settings = settings;
    }

    static String proxyUrl(String gateway) {
        return "http://" + gateway + ":" + PROXY_PORT;
    }

    /**
     * The gateway's address: its Service's cluster IP, the proxy and the DNS server of every egress
     * pod (a pod's IP changes when it is made again; the Service's does not).
     */
    String address() {
        KubernetesSettings.Network n = provider.settings().network();
        Service svc =
                provider.client()
                        .services()
                        .inNamespace(provider.settings().gatewayNamespace())
                        .withName(n.gatewayService())
                        .get();
        String ip = svc == null || svc.getSpec() == null ? null : svc.getSpec().getClusterIP();
        if (ip == null || ip.isBlank() || ip.equals("None")) {
            throw ProblemException.providerUnavailable(
                    "The egress gateway's Service "
                            + provider.settings().gatewayNamespace()
                            + "/"
                            + n.gatewayService()
                            + " does not exist or has no cluster IP"
                            + " (deploy/kubernetes/egress-gateway.yaml).",
                    null);
        }
        return PodChannels.literal(ip).getHostAddress();
    }

    /**
     * Writes the rules of pod {@code podName} at {@code podIp} into every ready gateway pod, and
     * makes them live, before returning.
     */
    void apply(String podName, String podIp, EgressPolicy policy) {
        List<GatewayPod> gateways = readyGateways();
        if (gateways.isEmpty()) {
            throw ProblemException.providerUnavailable(
                    "No egress gateway pod is ready (pods "
                            + provider.settings().network().gatewaySelector()
                            + " in "
                            + provider.settings().gatewayNamespace()
                            + ").",
                    null);
        }
        GatewayRules.Files files = GatewayRules.render(podName, policy, settings.alwaysAllow());
        for (GatewayPod g : gateways) {
            seed(g);
            run(g, WRITE, List.of(GatewayRules.stem(podIp)), filesEnv(files));
        }
    }

    /**
     * Removes the rules of pod {@code podName} at {@code podIp} from every ready gateway pod, where
     * they still name it. Best effort: a gateway pod that does not answer keeps rules for an IP
     * that the next pod there overwrites before it runs anything.
     */
    void release(String podName, String podIp) {
        for (GatewayPod g : readyGateways()) {
            try {
                run(
                        g,
                        RELEASE,
                        List.of(GatewayRules.stem(podIp), GatewayRules.HEADER + podName),
                        Map.of());
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "egress gateway pod "
                                + g.name()
                                + ": releasing the rules of "
                                + podName
                                + " failed",
                        e);
            }
        }
    }

    /** Seeds every ready gateway pod this replica has not seeded yet. */
    void resync() {
        for (GatewayPod g : readyGateways()) {
            try {
                seed(g);
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "egress gateway pod " + g.name() + " could not be seeded",
                        e);
            }
        }
    }

    /**
     * Gives a gateway container new to this replica the operator's files and, unless a replica did
     * already, the rules of the running egress pods where it has none.
     */
    private void seed(GatewayPod g) {
        if (seeded.contains(g.generation())) {
            return;
        }
        run(g, CONFIGURE, List.of(), operatorEnv());
        if (run(g, "[ -e " + RESTORED + " ]", List.of(), Map.of(), false) != 0) {
            int restored = 0;
            for (Pod pod : runningEgressPods()) {
                String ip = pod.getStatus().getPodIP();
                String label = pod.getMetadata().getAnnotations().get(SandboxObjects.EGRESS);
                EgressPolicy policy;
                try {
                    policy = EgressLabel.parse(label);
                } catch (IllegalArgumentException e) {
                    LOG.warning(
                            "egress pod " + pod.getMetadata().getName() + " has no readable rules");
                    continue;
                }
                GatewayRules.Files files =
                        GatewayRules.render(
                                pod.getMetadata().getName(), policy, settings.alwaysAllow());
                run(g, RESTORE, List.of(GatewayRules.stem(ip)), filesEnv(files));
                restored++;
            }
            run(g, "agentbox-egress reload && touch " + RESTORED, List.of(), Map.of());
            LOG.info(
                    "egress gateway pod "
                            + g.name()
                            + ": rules restored where missing for "
                            + restored
                            + " running egress pod(s)");
        }
        seeded.add(g.generation());
    }

    private List<Pod> runningEgressPods() {
        return provider
                .client()
                .pods()
                .inNamespace(provider.settings().namespace())
                .withLabel(SandboxLabels.MANAGED, "true")
                .withLabel(SandboxObjects.NETWORK, "egress")
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> p.getStatus() != null && present(p.getStatus().getPodIP()))
                .filter(p -> p.getMetadata().getAnnotations() != null)
                .toList();
    }

    /** The gateway's pods that are ready and have an IP, by name. */
    List<GatewayPod> readyGateways() {
        KubernetesSettings.Network n = provider.settings().network();
        List<GatewayPod> out = new ArrayList<>();
        for (Pod p :
                provider.client()
                        .pods()
                        .inNamespace(provider.settings().gatewayNamespace())
                        .withLabels(n.gatewaySelector())
                        .list()
                        .getItems()) {
            if (p.getStatus() == null
                    || !present(p.getStatus().getPodIP())
                    || p.getMetadata().getDeletionTimestamp() != null
                    || PodReadiness.hopeless(p).isPresent()
                    || !ready(p)) {
                continue;
            }
            int restarts =
                    p.getStatus().getContainerStatuses() == null
                            ? 0
                            : p.getStatus().getContainerStatuses().stream()
                                    .mapToInt(ContainerStatus::getRestartCount)
                                    .sum();
            out.add(
                    new GatewayPod(
                            p.getMetadata().getName(),
                            p.getStatus().getPodIP(),
                            p.getMetadata().getUid() + "/" + restarts));
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    private static boolean ready(Pod p) {
        return p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean present(String s) {
        return s != null && !s.isBlank();
    }

    private void run(GatewayPod g, String script, List<String> args, Map<String, String> env) {
        run(g, script, args, env, true);
    }

    /**
     * Runs {@code script} in gateway pod {@code g}; its exit code, or a {@code 503} when it must be
     * 0.
     */
    private int run(
            GatewayPod g,
            String script,
            List<String> args,
            Map<String, String> env,
            boolean mustPass) {
        List<String> scriptAndArgs = new ArrayList<>(List.of(script));
        scriptAndArgs.addAll(args);
        List<String> environment = new ArrayList<>();
        env.forEach((k, v) -> environment.add(k + "=" + v));
        SandboxChannel ch = channel(g);
        try (ChannelCall call =
                ChannelCall.start(
                        ch,
                        provider.channels().watchdog(),
                        Optional.empty(),
                        scriptAndArgs,
                        environment,
                        "/",
                        64 * 1024)) {
            if (call.await(DEADLINE) != CapturedExec.End.COMPLETED) {
                throw unavailable(g, "did not answer within " + DEADLINE.toSeconds() + " s");
            }
            if (mustPass && call.exitCode() != 0) {
                // the scripts echo names and paths only, never a rule's or secret's value
                throw unavailable(
                        g,
                        "failed (exit "
                                + call.exitCode()
                                + "): "
                                + new String(call.capture().stderr(), StandardCharsets.UTF_8)
                                        .strip());
            }
            return call.exitCode();
        } catch (ChannelException e) {
            channels.remove(g.name());
            throw unavailable(g, e.getMessage());
        }
    }

    private ProblemException unavailable(GatewayPod g, String why) {
        return ProblemException.providerUnavailable(
                "The egress gateway pod " + g.name() + " (" + g.ip() + ") " + why + ".", null);
    }

    /** The channel to gateway pod {@code g}'s helper, made again for a new container. */
    private SandboxChannel channel(GatewayPod g) {
        Known k = channels.get(g.name());
        if (k != null && k.generation().equals(g.generation()) && k.channel().usable()) {
            return k.channel();
        }
        SandboxChannel ch =
                new SandboxChannel(
                        "egress gateway " + g.name(),
                        new TcpEndpoint(
                                new InetSocketAddress(
                                        PodChannels.literal(g.ip()),
                                        provider.settings().network().helperPort()),
                                gatewayKey()),
                        provider.channels().watchdog(),
                        provider.channels().workers());
        Known old = channels.put(g.name(), new Known(g.generation(), ch));
        if (old != null) {
            old.channel().dropSpare();
        }
        return ch;
    }

    private ChannelKey gatewayKey() {
        KubernetesSettings.Network n = provider.settings().network();
        Secret s =
                provider.client()
                        .secrets()
                        .inNamespace(provider.settings().gatewayNamespace())
                        .withName(n.gatewayKeySecret())
                        .get();
        String item = s == null || s.getData() == null ? null : s.getData().get(KEY_ITEM);
        byte[] key = item == null ? new byte[0] : Base64.getDecoder().decode(item);
        if (key.length != ChannelKey.LENGTH) {
            throw ProblemException.providerUnavailable(
                    "The egress gateway's Secret "
                            + provider.settings().gatewayNamespace()
                            + "/"
                            + n.gatewayKeySecret()
                            + " has no item "
                            + KEY_ITEM
                            + " of "
                            + ChannelKey.LENGTH
                            + " bytes.",
                    null);
        }
        return ChannelKey.of(key);
    }

    private static Map<String, String> filesEnv(GatewayRules.Files files) {
        return Map.of("AGENTBOX_RULES", files.rules(), "AGENTBOX_DNS", files.dns());
    }

    /** The operator's files, as the Docker gateways get them. */
    private Map<String, String> operatorEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AGENTBOX_HOSTS", settings.hostsFile());
        env.put("AGENTBOX_RESOLVED", settings.resolvedAcl());
        String tls = "tls_outgoing_options default-ca=on";
        String ca = "";
        if (settings.upstreamCa().isPresent()) {
            try {
                ca = Files.readString(settings.upstreamCa().get());
            } catch (IOException e) {
                throw new UncheckedIOException("agentbox.egress.upstream-ca: cannot read", e);
            }
            tls += " cafile=" + CONF + "/upstream-ca.pem";
        }
        env.put("AGENTBOX_TLS", tls + "\n");
        env.put("AGENTBOX_UPSTREAM_CA", ca);
        return env;
    }

    void close() {
        channels.values().forEach(k -> k.channel().dropSpare());
        channels.clear();
    }
}
