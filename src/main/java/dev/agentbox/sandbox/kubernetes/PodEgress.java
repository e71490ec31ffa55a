package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.egress.CaTrust;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.egress.GatewayRelease;
import dev.agentbox.sandbox.egress.GatewayRules;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.EgressAudit;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.SandboxLabels;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * Brokered secrets go to every ready gateway pod ({@link #broker}); the refusals are read from all
 * of them ({@link #audit}).
 */
final class PodEgress {

    static final int PROXY_PORT = 3128;

    /**
     * Where an egress pod finds the installation's CA and a bundle of it with the image's roots:
     * written as the pod's user after it is ready (its root filesystem is not its own to write).
     */
    static final String POD_CA = "/tmp/agentbox/egress-ca.pem";

    static final String POD_BUNDLE = "/tmp/agentbox/ca-bundle.pem";

    /** The variables that make an egress pod's clients trust {@link #POD_CA}. */
    static final Map<String, String> TRUST_ENV =
            Map.of(
                    "NODE_EXTRA_CA_CERTS", POD_CA,
                    "SSL_CERT_FILE", POD_BUNDLE,
                    "REQUESTS_CA_BUNDLE", POD_BUNDLE);

    /** How often each replica seeds gateway pods that are new to it ({@link #resync}). */
    static final long RESYNC_SECONDS = 10;

    private static final String CONF = "/etc/agentbox-egress";
    private static final String SANDBOXES = CONF + "/sandboxes";

    /** In a gateway container once a replica restored the running pods' rules into it. */
    private static final String RESTORED = SANDBOXES + "/.restored";

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

    private final KubernetesSandboxProvider provider;
    private final EgressSettings settings;
    private final GatewayPods pods;
    private final AtomicBoolean resyncing = new AtomicBoolean();

    /** Gateway containers ({@link GatewayPods.GatewayPod#generation}) this replica has seeded. */
    private final Set<String> seeded = ConcurrentHashMap.newKeySet();

    /**
     * The CA each gateway container serves (it makes one when it starts without the operator's, so
     * a container made again may have another).
     */
    private final Map<String, String> caByGeneration = new ConcurrentHashMap<>();

    PodEgress(KubernetesSandboxProvider provider, EgressSettings settings) {
        this.provider = provider;
        this.settings = settings;
        this.pods = new GatewayPods(provider);
    }

    static String proxyUrl(String gateway) {
        return "http://" + gateway + ":" + PROXY_PORT;
    }

    /** The gateway's address: its Service's cluster IP ({@link GatewayPods#serviceAddress}). */
    String address() {
        return pods.serviceAddress();
    }

    /**
     * Once per replica: every {@link #RESYNC_SECONDS} the gateway pods new to this replica are
     * seeded ({@link #resync}), so a gateway pod made again serves the running egress pods before
     * the next one is made.
     */
    void start() {
        if (resyncing.compareAndSet(false, true)) {
            provider.channels()
                    .watchdog()
                    .scheduleWithFixedDelay(
                            () -> {
                                try {
                                    resync();
                                } catch (RuntimeException e) {
                                    LOG.log(Level.WARNING, "egress gateway resync failed", e);
                                }
                            },
                            RESYNC_SECONDS,
                            RESYNC_SECONDS,
                            TimeUnit.SECONDS);
        }
    }

    /** The rules of ready pod {@code podName} into every ready gateway pod ({@link #apply}). */
    void apply(String podName, EgressPolicy policy) {
        String ip =
                provider.managedPod(podName)
                        .map(p -> p.getStatus() == null ? null : p.getStatus().getPodIP())
                        .filter(a -> !a.isBlank())
                        .orElseThrow(
                                () ->
                                        ProblemException.providerUnavailable(
                                                "Sandbox pod " + podName + " has no IP.", null));
        apply(podName, ip, policy);
    }

    /**
     * Writes the rules of pod {@code podName} at {@code podIp} into every ready gateway pod, and
     * makes them live, before returning.
     */
    void apply(String podName, String podIp, EgressPolicy policy) {
        List<GatewayPods.GatewayPod> gateways = pods.ready();
        if (gateways.isEmpty()) {
            throw noGateway();
        }
        GatewayRules.Files files = GatewayRules.render(podName, policy, settings.alwaysAllow());
        for (GatewayPods.GatewayPod g : gateways) {
            seed(g);
            pods.run(g, WRITE, List.of(GatewayRules.stem(podIp)), filesEnv(files));
        }
    }

    /**
     * Makes egress pod {@code sandbox} trust the installation's CA, which signs what the gateway
     * serves for brokered hosts, as read from the first ready gateway pod (every gateway pod has
     * the same one when the operator gives them one: {@code agentbox-egress-ca}).
     */
    void trustCa(KubernetesSandbox sandbox) {
        // the listing apply() has just taken; the CA read once per gateway container
        GatewayPods.GatewayPod g =
                pods.recentlyReady().stream().findFirst().orElseThrow(() -> noGateway());
        String pem = caByGeneration.get(g.generation());
        if (pem == null) {
            // read outside the map: a call of up to the channel's deadline holds no lock
            pem = pods.output(g, "exec agentbox-egress ca");
            if (!pem.contains("BEGIN CERTIFICATE")) {
                throw ProblemException.providerUnavailable(
                        "The egress gateway pod " + g.name() + " has no CA.", null);
            }
            caByGeneration.put(g.generation(), pem);
        }
        CaTrust.install(sandbox, pem, POD_CA, POD_BUNDLE, false);
    }

    /**
     * Replaces the brokered secrets of egress pod {@code podName} at {@code podIp} in every ready
     * gateway pod's memory-backed volume. The values travel in the environment of one script per
     * gateway pod (never on a command line) and are written only there; a gateway pod made again
     * has lost them until the next ensure supplies them again, as on Docker.
     */
    void broker(String podName, String podIp, Map<String, BrokeredSecret> byPlaceholder) {
        List<GatewayPods.GatewayPod> gateways = pods.ready();
        if (gateways.isEmpty()) {
            throw noGateway();
        }
        for (GatewayPods.GatewayPod g : gateways) {
            seed(g);
            pods.run(
                    g,
                    "exec agentbox-egress secrets \"$1\"",
                    List.of(GatewayRules.stem(podIp)),
                    Map.of(
                            "AGENTBOX_SECRETS_TRANSFER",
                            GatewayRules.secretsTransfer(byPlaceholder)));
        }
    }

    /** The refusals of the egress pod at {@code podIp} ({@link PodAudit}). */
    EgressAudit audit(String podIp) {
        return new PodAudit(pods, podIp);
    }

    /**
     * Removes the files of pod {@code podName} at {@code podIp} from every ready gateway pod, where
     * they still name it ({@link GatewayRelease}). Best effort: a gateway pod that does not answer
     * keeps rules for an IP that the next pod there overwrites before it runs anything.
     */
    void release(String podName, String podIp) {
        for (GatewayPods.GatewayPod g : pods.ready()) {
            try {
                pods.run(g, GatewayRelease.SCRIPT, GatewayRelease.args(podName, podIp), Map.of());
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
        for (GatewayPods.GatewayPod g : pods.ready()) {
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
    private void seed(GatewayPods.GatewayPod g) {
        if (seeded.contains(g.generation())) {
            return;
        }
        pods.run(g, CONFIGURE, List.of(), operatorEnv());
        if (pods.run(g, "[ -e " + RESTORED + " ]", List.of(), Map.of(), false) != 0) {
            int restored = 0;
            for (Pod pod : runningEgressPods()) {
                String ip = pod.getStatus().getPodIP();
                String label = pod.getMetadata().getAnnotations().get(SandboxObjects.EGRESS);
                EgressPolicy policy;
                try {
                    policy = EgressLabel.parse(label == null ? "" : label);
                } catch (IllegalArgumentException e) {
                    LOG.warning(
                            "egress pod " + pod.getMetadata().getName() + " has no readable rules");
                    continue;
                }
                GatewayRules.Files files =
                        GatewayRules.render(
                                pod.getMetadata().getName(), policy, settings.alwaysAllow());
                pods.run(g, RESTORE, List.of(GatewayRules.stem(ip)), filesEnv(files));
                restored++;
            }
            pods.run(g, "agentbox-egress reload && touch " + RESTORED, List.of(), Map.of());
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
                .filter(p -> p.getStatus() != null && p.getStatus().getPodIP() != null)
                .filter(p -> !p.getStatus().getPodIP().isBlank())
                .filter(p -> p.getMetadata().getAnnotations() != null)
                .toList();
    }

    private ProblemException noGateway() {
        return ProblemException.providerUnavailable(
                "No egress gateway pod is ready (pods "
                        + provider.settings().network().gatewaySelector()
                        + " in "
                        + provider.settings().gatewayNamespace()
                        + ").",
                null);
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
        pods.close();
    }
}
