package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelKey;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.channel.TcpEndpoint;
import dev.agentbox.sandbox.datapath.CapturedExec;
import dev.agentbox.sandbox.datapath.ChannelCall;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The egress gateway's pods as a replica finds and reaches them: the Service's cluster IP, the
 * ready pods of the gateway's selector, and a script run in one of them over the channel to its
 * helper, opened with the key of the gateway's Secret ({@code
 * agentbox.kubernetes.egress.gateway-key-secret}), which no sandbox pod mounts.
 *
 * <p>A channel is kept per gateway pod and container generation ({@link GatewayPod#generation}): a
 * pod made again, or whose container restarted, gets a new one.
 *
 * <p>Writers (rules, secrets, seeding) list the pods afresh each time; the refusal readers of every
 * run on this replica share one listing up to {@link #RECENT} old ({@link #recentlyReady}), so a
 * hundred running runs, each reading every two seconds, do not list the gateway's pods fifty times
 * a second against the API server.
 */
final class GatewayPods {

    static final String KEY_ITEM = SandboxObjects.CHANNEL_KEY_ITEM;
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    /**
     * A ready gateway pod. {@code generation}: its UID and its containers' restart count, which
     * changes whenever its files may have been lost.
     */
    record GatewayPod(String name, String ip, String generation) {}

    private record Known(String generation, SandboxChannel channel) {}

    /** How old a listing {@link #recentlyReady} may answer with. */
    static final Duration RECENT = Duration.ofSeconds(2);

    /** A listing of the ready pods and when it was taken ({@link #nanos}). */
    private record Listing(long at, List<GatewayPod> pods) {}

    private final KubernetesSandboxProvider provider;
    private final LongSupplier nanos;
    private final Map<String, Known> channels = new ConcurrentHashMap<>();
    private final Object listing = new Object();
    private volatile Listing last;

    GatewayPods(KubernetesSandboxProvider provider) {
        this(provider, System::nanoTime);
    }

    GatewayPods(KubernetesSandboxProvider provider, LongSupplier nanos) {
        this.provider = provider;
        this.nanos = nanos;
    }

    /**
     * The gateway's address: its Service's cluster IP, the proxy and the DNS server of every egress
     * pod (a pod's IP changes when it is made again; the Service's does not).
     */
    String serviceAddress() {
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
     * {@link #ready} as listed at most {@link #RECENT} ago: for readers that may miss a pod that
     * became ready since, or name one that just went away (its call then fails, and {@link
     * #forgetListing} makes the next reader list afresh). Readers arriving together while the
     * listing is stale wait for one listing instead of each making its own.
     */
    List<GatewayPod> recentlyReady() {
        Listing l = last;
        if (recent(l)) {
            return l.pods();
        }
        synchronized (listing) {
            l = last;
            return recent(l) ? l.pods() : ready();
        }
    }

    private boolean recent(Listing l) {
        return l != null && nanos.getAsLong() - l.at() < RECENT.toNanos();
    }

    /** This replica's monotonic clock, in nanoseconds (settable in tests). */
    long nanos() {
        return nanos.getAsLong();
    }

    /** The next {@link #recentlyReady} lists afresh. */
    void forgetListing() {
        last = null;
    }

    /** The gateway's pods that are ready and have an IP, by name, listed now. */
    List<GatewayPod> ready() {
        long at = nanos.getAsLong();
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
        List<GatewayPod> pods = List.copyOf(out);
        last = new Listing(at, pods);
        return pods;
    }

    private static boolean ready(Pod p) {
        return p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean present(String s) {
        return s != null && !s.isBlank();
    }

    /** The stdout of {@code script} with {@code args} in gateway pod {@code g}; it must exit 0. */
    String output(GatewayPod g, String script, String... args) {
        return new String(
                call(g, script, List.of(args), Map.of(), true).stdout(), StandardCharsets.UTF_8);
    }

    void run(GatewayPod g, String script, List<String> args, Map<String, String> env) {
        run(g, script, args, env, true);
    }

    /**
     * Runs {@code script} in gateway pod {@code g}; its exit code, or a {@code 503} when it must be
     * 0.
     */
    int run(
            GatewayPod g,
            String script,
            List<String> args,
            Map<String, String> env,
            boolean mustPass) {
        return call(g, script, args, env, mustPass).code();
    }

    private record Ran(int code, byte[] stdout) {}

    private Ran call(
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
            return new Ran(call.exitCode(), call.capture().stdout());
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

    void close() {
        channels.values().forEach(k -> k.channel().dropSpare());
        channels.clear();
    }
}
