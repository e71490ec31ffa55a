package dev.agentbox.sandbox.kubernetes;

import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.BACKGROUND_PROCESSES;
import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.ENV;
import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.EXEC;
import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.FS;
import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.KILLABLE_PROCESSES;
import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.NETWORK_POLICY;
import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.PORTS;
import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.WRITABLE_STDIN;

import dev.agentbox.platform.Lazy;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelKey;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxExistsException;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.HttpURLConnection;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * Sandboxes as Kubernetes pods, through the fabric8 client, in one namespace ({@code
 * agentbox.kubernetes.namespace}). A sandbox is three objects named after its pod ({@link
 * SandboxObjects}): the pod ({@link SandboxPodSpec}), a NetworkPolicy ({@link
 * SandboxNetworkPolicy}) and, when it has secrets, a Secret ({@link SandboxSecretWriter}); the
 * other two are owned by the pod.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A create returns only a ready pod. A pod that is not ready within {@code
 *       agentbox.kubernetes.ready-timeout-ms}, or cannot become ready, is deleted with its Secret
 *       and NetworkPolicy before the error ({@code 503 provider-unavailable}) propagates.
 *   <li>Only pods labelled {@link SandboxLabels#MANAGED}{@code =true} are resumed, listed or
 *       destroyed; any other pod is as if absent.
 *   <li>The network policy object exists before the pod is reported ready: it is created right
 *       after the pod, before the wait.
 * </ul>
 *
 * <p>Every sandbox gets its own channel key, written only into its Secret; its pod runs the
 * in-sandbox helper over TCP with that key ({@link SandboxPodSpec}), and {@link #channel} reaches
 * it at the pod's IP ({@link PodChannels}) from any replica.
 *
 * <p>Capabilities, measured by the conformance suite against the mock API server with each pod's
 * helper in a Docker container (KubernetesProviderContractTest):
 *
 * <ul>
 *   <li>{@code fs}, {@code exec}, {@code env}, {@code backgroundProcesses}, {@code
 *       killableProcesses} and {@code writableStdin}: the data path over the channel ({@link
 *       KubernetesSandbox}, {@code sandbox.datapath}), as on a Docker sandbox with a channel. There
 *       is no other path: a pod whose helper cannot be reached fails these with {@code 503
 *       provider-unavailable} (no exec through the API server);
 *   <li>{@code ports}: the port proxy connects to the pod's IP ({@link PodPorts}); nothing is
 *       published, and a pod with {@code network: none} has no reachable port;
 *   <li>not {@code durableFilesystem}, {@code snapshots} or {@code fork}: the workspace is an
 *       emptyDir;
 *   <li>{@code networkPolicy} only with an egress gateway deployed ({@code
 *       agentbox.kubernetes.egress.enabled}, {@link PodEgress}); the NetworkPolicy objects are made
 *       for every network (SandboxNetworkPolicyTest), and whether they are enforced depends on the
 *       cluster's network plugin.
 * </ul>
 */
@ApplicationScoped
public class KubernetesSandboxProvider implements SandboxProvider {

    public static final String NAME = "kubernetes";

    /**
     * Without an egress gateway: no {@code networkPolicy}, so an {@code egress} ensure is refused
     * ({@code 422 unsupported-capability}) before any object is made, rather than make a sandbox
     * that reaches none of the hosts its policy allows. {@code none} and {@code bridge} are
     * confined by NetworkPolicy objects all the same ({@link SandboxNetworkPolicy}).
     */
    static final SandboxCapabilities CAPABILITIES =
            SandboxCapabilities.of(
                    FS, EXEC, ENV, BACKGROUND_PROCESSES, KILLABLE_PROCESSES, WRITABLE_STDIN, PORTS);

    /** With an egress gateway deployed ({@code agentbox.kubernetes.egress.enabled}). */
    static final SandboxCapabilities WITH_EGRESS =
            SandboxCapabilities.of(
                    FS,
                    EXEC,
                    ENV,
                    BACKGROUND_PROCESSES,
                    KILLABLE_PROCESSES,
                    WRITABLE_STDIN,
                    PORTS,
                    NETWORK_POLICY);

    private static final Logger LOG = Logger.getLogger(KubernetesSandboxProvider.class.getName());

    private final KubernetesSettings settings;
    private final SandboxLimits limits;
    // Made on first use: a disabled provider never reads a kubeconfig or opens a connection.
    private final Lazy<KubernetesClient> client;
    private final boolean ownsClient;
    private final PodChannels channels;
    private final Lazy<PodEgress> egress;
    private final SandboxPods pods;
    private final SecureRandom random;

    /** For CDI proxies only. */
    protected KubernetesSandboxProvider() {
        this.settings = null;
        this.limits = null;
        this.client = null;
        this.ownsClient = false;
        this.channels = null;
        this.egress = null;
        this.pods = null;
        this.random = null;
    }

    @Inject
    public KubernetesSandboxProvider(Config config) {
        this(
                KubernetesSettings.fromConfig(config),
                SandboxLimits.fromConfig(config),
                EgressSettings.fromConfig(config));
    }

    /** A provider that makes its own client from {@code settings.credentials()}. */
    public KubernetesSandboxProvider(KubernetesSettings settings) {
        this(settings, SandboxLimits.defaults());
    }

    /** A provider that makes its own client from {@code settings.credentials()}. */
    public KubernetesSandboxProvider(KubernetesSettings settings, SandboxLimits limits) {
        this(settings, limits, EgressSettings.defaults());
    }

    /** A provider that makes its own client from {@code settings.credentials()}. */
    public KubernetesSandboxProvider(
            KubernetesSettings settings, SandboxLimits limits, EgressSettings egress) {
        this.settings = settings;
        this.limits = limits;
        this.client = Lazy.of(() -> KubernetesClients.connect(settings.credentials()));
        this.ownsClient = true;
        this.channels = new PodChannels(this);
        this.egress = Lazy.of(() -> new PodEgress(this, egress));
        this.pods = new SandboxPods(this);
        this.random = new SecureRandom();
    }

    /** A provider on a client the caller owns (and closes). */
    public KubernetesSandboxProvider(KubernetesSettings settings, KubernetesClient client) {
        this(settings, EgressSettings.defaults(), client);
    }

    /** A provider on a client the caller owns (and closes), with these egress settings. */
    public KubernetesSandboxProvider(
            KubernetesSettings settings, EgressSettings egress, KubernetesClient client) {
        this.settings = settings;
        this.limits = SandboxLimits.defaults();
        this.client = Lazy.of(() -> client);
        this.ownsClient = false;
        this.channels = new PodChannels(this);
        this.egress = Lazy.of(() -> new PodEgress(this, egress));
        this.pods = new SandboxPods(this);
        this.random = new SecureRandom();
    }

    public KubernetesSettings settings() {
        return settings;
    }

    /** The bounds of every exec, read and process output of this provider's sandboxes. */
    public SandboxLimits limits() {
        return limits;
    }

    PodChannels channels() {
        return channels;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SandboxCapabilities capabilities() {
        return settings.network().egressEnabled() ? WITH_EGRESS : CAPABILITIES;
    }

    /** The egress gateway of this provider's egress pods. */
    PodEgress egress() {
        return egress.get();
    }

    /** With a gateway deployed, starts this replica's gateway resync ({@link PodEgress#start}). */
    private void resyncGateways() {
        if (settings.network().egressEnabled()) {
            egress().start();
        }
    }

    @Override
    public boolean enabled() {
        return settings.enabled();
    }

    /**
     * The API server answers a list of the sandbox namespace's pods (one item at most): the
     * provider's own permission, where a read of the namespace object would need a cluster role.
     */
    @Override
    public boolean available() {
        try {
            client().pods()
                    .inNamespace(settings.namespace())
                    .list(new ListOptionsBuilder().withLimit(1L).build());
            resyncGateways();
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "kubernetes API server not available", e);
            return false;
        }
    }

    @PreDestroy
    public void close() {
        egress.ifMade().ifPresent(PodEgress::close);
        channels.close();
        if (ownsClient) {
            client.ifMade().ifPresent(KubernetesClient::close);
        }
    }

    KubernetesClient client() {
        return client.get();
    }

    SandboxSecretWriter secrets() {
        return new SandboxSecretWriter(client(), settings.namespace());
    }

    /**
     * The sandbox channel to the helper of sandbox {@code id}, at its pod's IP with the key of its
     * Secret; empty while the pod has no IP or is not a managed pod. Any replica gets it, not only
     * the one that made the sandbox.
     */
    public Optional<SandboxChannel> channel(String id) {
        return SandboxPods.call(() -> channels.of(id));
    }

    @Override
    public SandboxHandle create(SandboxCreateInput input) {
        return create(input, Map.of());
    }

    /**
     * Makes a sandbox whose pod, and only it, sees {@code secrets} as files under {@link
     * SandboxObjects#SECRETS_MOUNT} (one file per name).
     */
    public SandboxHandle create(SandboxCreateInput input, Map<String, String> secrets) {
        input.image().ifPresent(i -> settings.images().check(i));
        String image = input.image().orElse(settings.image());
        String name = SandboxObjects.podName(input);
        boolean viaGateway = input.policy().network() == SandboxPolicy.Network.EGRESS;
        if (viaGateway) {
            // checked by the caller against capabilities(); a direct call is refused all the same
            if (!settings.network().egressEnabled()) {
                throw new UnsupportedCapabilityException(NAME, NETWORK_POLICY);
            }
            resyncGateways();
        }
        // Built before anything is created: a policy above the ceilings, or a gateway that is
        // not there, leaves nothing behind.
        Pod spec =
                SandboxPodSpec.build(
                        name,
                        image,
                        input,
                        settings,
                        secrets.keySet(),
                        viaGateway
                                ? Optional.of(SandboxPods.call(() -> egress().address()))
                                : Optional.empty());
        Map<String, String> labels = SandboxObjects.labels(name, input);
        SandboxSecretWriter writer = secrets();
        // This sandbox's own: stored in its Secret only, so no other sandbox's key opens it.
        ChannelKey key = ChannelKey.generate(random);
        boolean done = false;
        try {
            // A Secret of this name means the name is taken: never fall through to the cleanup,
            // which would delete the existing sandbox's objects.
            createOrExists(name, () -> writer.write(name, labels, key, secrets));
            Pod pod = createOrExists(name, () -> createPod(spec));
            client().network()
                    .networkPolicies()
                    .inNamespace(settings.namespace())
                    .resource(
                            SandboxSecretWriter.owned(
                                    SandboxNetworkPolicy.build(
                                            name, labels, input.policy().network(), settings),
                                    pod))
                    .create();
            writer.adopt(pod);
            Optional<String> notReady =
                    PodReadiness.await(
                            client(), settings.namespace(), name, settings.readyTimeout());
            if (notReady.isPresent()) {
                throw ProblemException.providerUnavailable(
                        "Sandbox pod " + name + " was deleted: " + notReady.get() + ".", null);
            }
            if (viaGateway) {
                // before the sandbox runs any command: an IP may have been a destroyed pod's,
                // whose rules are replaced here
                SandboxPods.call(
                        () -> {
                            egress().apply(name, input.policy().egress());
                            egress().trustCa(new KubernetesSandbox(this, name));
                            return null;
                        });
            }
            done = true;
            return new KubernetesSandbox(this, name);
        } catch (SandboxExistsException e) {
            // the objects of that name are the existing sandbox's: left alone
            done = true;
            throw e;
        } catch (KubernetesClientException e) {
            throw ProblemException.providerUnavailable(
                    "The Kubernetes API server refused or failed to create sandbox "
                            + name
                            + " (HTTP "
                            + e.getCode()
                            + ").",
                    e);
        } finally {
            if (!done) {
                pods.deleteAfterFailedCreate(name);
            }
        }
    }

    private Pod createPod(Pod spec) {
        return client().pods().inNamespace(settings.namespace()).resource(spec).create();
    }

    /** The object {@code create} makes; {@code 409 sandbox-exists} when its name is taken. */
    private static <T> T createOrExists(String name, java.util.function.Supplier<T> create) {
        try {
            return create.get();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                throw new SandboxExistsException(name);
            }
            throw e;
        }
    }

    /**
     * The managed pod {@code id} while it runs or starts; absent when it is gone, going or ended (a
     * pod does not restart once ended: its sandbox is lost).
     */
    @Override
    public Optional<SandboxHandle> resume(String id) {
        return pods.managed(id)
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> PodReadiness.hopeless(p).isEmpty())
                .map(p -> new KubernetesSandbox(this, id));
    }

    /**
     * Deletes the pod, its NetworkPolicy and its Secret. Gone = success; a pod that is not
     * agentbox's is left alone (with the objects of its name).
     */
    @Override
    public void destroy(String id) {
        channels.forget(id);
        Optional<Pod> pod = pods.managed(id);
        if (pod.isEmpty() && pods.exists(id)) {
            return;
        }
        pods.delete(id);
        // after the pod is gone, and best effort: the pod is deleted either way, and rules left
        // behind name an IP that the next egress pod there overwrites before it runs anything
        pod.flatMap(SandboxPods::egressIp)
                .ifPresent(
                        ip -> {
                            try {
                                egress().release(id, ip);
                            } catch (RuntimeException e) {
                                LOG.log(
                                        Level.WARNING,
                                        "egress rules of " + id + " not released from the gateway",
                                        e);
                            }
                        });
    }

    @Override
    public List<ManagedSandbox> listManaged() {
        return pods.listManaged();
    }

    /** The managed pod {@code id}, in whatever state ({@link SandboxPods#managed}). */
    Optional<Pod> managedPod(String id) {
        return pods.managed(id);
    }

    /** The IP of egress pod {@code id}; empty for a pod of another network, or none. */
    Optional<String> egressIp(String id) {
        return pods.egressIp(id);
    }
}
