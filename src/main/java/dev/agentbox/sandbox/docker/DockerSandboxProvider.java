package dev.agentbox.sandbox.docker;

import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.*;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.Lazy;
import dev.agentbox.sandbox.docker.ContainerFactory.ImageRole;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.SnapshotRef;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * Sandboxes as Docker containers, through docker-java against {@code agentbox.docker.host}.
 *
 * <p>Hardening of every container: not privileged, {@code no-new-privileges}, all Linux
 * capabilities dropped except CHOWN, DAC_OVERRIDE, FOWNER, FSETID (a root shell, git and tar keep
 * owning and chmod-ing files of any user), SETUID, SETGID (su/setpriv to drop to an unprivileged
 * user) and KILL (signal processes of another uid); memory, CPU and pids limits; an open-files
 * limit; network {@code none} unless the policy says {@code bridge}, and then the tenant's own
 * network ({@link TenantNetworks}), never the engine's default bridge; no mount but the sandbox's
 * own channel socket folder ({@link SandboxChannels}; never the Docker socket); {@code init=true}
 * so PID 1 forwards signals and reaps orphans. Opt-in: a non-root user, a read-only root
 * filesystem, a writable-layer size (docs/hardening.md says what each costs).
 *
 * <p>Images: a create names only an image on the allowlist ({@link
 * DockerSettings#allowedImages()}); snapshots and forks are created through {@link
 * #restoreSnapshot} and {@link #fork}, never through a requested name. Images are never pulled: a
 * missing image is an error at once. What the engine refuses at create is {@code 400} with a safe
 * detail and an incident id in the log, never the engine's own text.
 */
@ApplicationScoped
public class DockerSandboxProvider implements SandboxProvider {

    public static final String NAME = "docker";
    static final String KEEP_ALIVE_SECONDS = "2147483647";
    static final String WORKSPACE = "/workspace";

    /** On a fork: its private image, removed when the fork is destroyed. */
    static final String FORK_IMAGE = "dev.agentbox.fork-image";

    /**
     * On a sandbox: its network as the policy named it ({@code bridge} or {@code egress}); absent =
     * none.
     */
    static final String NETWORK = "dev.agentbox.network";

    /** On an egress sandbox: its allow and deny rules ({@link EgressLabel}). */
    static final String EGRESS = "dev.agentbox.egress";

    private static final Logger LOG = Logger.getLogger(DockerSandboxProvider.class.getName());
    private static final Pattern NAME_OK = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.-]{0,100}");

    /**
     * Measured here (see DockerDebianTest#stdinEndOfInputDoesNotReachTheProcessThroughDockerJava):
     * bytes written to an exec's stdin arrive, but closing it never delivers EOF, so writable stdin
     * is not offered.
     */
    static final SandboxCapabilities CAPABILITIES =
            SandboxCapabilities.of(
                    FS,
                    EXEC,
                    ENV,
                    PORTS,
                    BACKGROUND_PROCESSES,
                    KILLABLE_PROCESSES,
                    SNAPSHOTS,
                    NETWORK_POLICY,
                    DURABLE_FILESYSTEM,
                    FORK);

    /**
     * A sandbox with a channel: its processes' stdin is a pipe whose end arrives (measured by the
     * conformance suite's stdin case on the channel path).
     */
    static final SandboxCapabilities CAPABILITIES_WITH_CHANNEL =
            SandboxCapabilities.of(
                    FS,
                    EXEC,
                    ENV,
                    PORTS,
                    BACKGROUND_PROCESSES,
                    KILLABLE_PROCESSES,
                    WRITABLE_STDIN,
                    SNAPSHOTS,
                    NETWORK_POLICY,
                    DURABLE_FILESYSTEM,
                    FORK);

    private final DockerSettings settings;
    private final SandboxLimits limits;
    private final ThreadFactory threads;
    private final ContainerFactory containers;
    private final ManagedContainers managed;
    private final DockerSnapshots snapshots;
    private final EgressSettings egress;
    // Made on first use: nothing reaches the engine before construction ends, and a provider
    // that is disabled never makes a client.
    private final Lazy<DockerEngine> engine;
    private final Lazy<ExecutorService> workers;
    private final Lazy<TenantNetworks> networks;
    private final Lazy<SandboxChannels> channels;
    private final Lazy<EgressGateways> gateways;
    private final Lazy<IdleGateways> idleGateways;

    /** For CDI proxies only. */
    protected DockerSandboxProvider() {
        this.settings = null;
        this.limits = null;
        this.threads = null;
        this.containers = null;
        this.managed = null;
        this.snapshots = null;
        this.egress = null;
        this.engine = null;
        this.workers = null;
        this.networks = null;
        this.channels = null;
        this.gateways = null;
        this.idleGateways = null;
    }

    @Inject
    public DockerSandboxProvider(Config config, Clock clock) {
        this(
                DockerSettings.fromConfig(config),
                SandboxLimits.fromConfig(config),
                new DaemonThreads("agentbox-docker"),
                clock,
                EgressSettings.fromConfig(config));
    }

    public DockerSandboxProvider(DockerSettings settings, ThreadFactory threads, Clock clock) {
        this(settings, SandboxLimits.defaults(), threads, clock);
    }

    public DockerSandboxProvider(
            DockerSettings settings, SandboxLimits limits, ThreadFactory threads, Clock clock) {
        this(settings, limits, threads, clock, EgressSettings.defaults());
    }

    public DockerSandboxProvider(
            DockerSettings settings,
            SandboxLimits limits,
            ThreadFactory threads,
            Clock clock,
            EgressSettings egress) {
        this.egress = egress;
        this.settings = settings;
        this.limits = limits;
        this.threads = threads;
        // The collaborators reach the engine through this provider, lazily: nothing is called
        // on it before construction ends.
        this.containers = new ContainerFactory(this);
        this.managed = new ManagedContainers(this);
        this.snapshots = new DockerSnapshots(this, containers, clock);
        this.engine = Lazy.of(() -> new DockerEngine(settings.host()));
        this.workers = Lazy.of(() -> Executors.newCachedThreadPool(threads));
        this.networks = Lazy.of(() -> new TenantNetworks(engine()));
        this.channels = Lazy.of(() -> new SandboxChannels(this, settings.channel()));
        this.gateways = Lazy.of(() -> new EgressGateways(this, egress));
        this.idleGateways = Lazy.of(() -> new IdleGateways(this, clock));
    }

    public DockerSettings settings() {
        return settings;
    }

    /** Output caps and deadlines of every exec and read in this provider's sandboxes. */
    public SandboxLimits limits() {
        return limits;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SandboxCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean enabled() {
        return settings.enabled();
    }

    @Override
    public boolean available() {
        try {
            return engine().ping();
        } catch (RuntimeException e) {
            return false;
        }
    }

    DockerEngine engine() {
        return engine.get();
    }

    /**
     * Short tasks off docker-java's callback threads (which are cancelled once a stream completes).
     */
    ExecutorService workers() {
        return workers.get();
    }

    /** The sandbox channels (docs/sandbox-channel.md). */
    SandboxChannels channels() {
        return channels.get();
    }

    @PreDestroy
    public void close() {
        channels.ifMade().ifPresent(SandboxChannels::close);
        try {
            if (engine.ifMade().isPresent()) {
                engine.get().close();
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing the docker client", e);
        }
        workers.ifMade().ifPresent(ExecutorService::shutdownNow);
    }

    /** The tenants' egress gateways (docs/egress.md). */
    EgressGateways gateways() {
        return gateways.get();
    }

    /**
     * The tenants' egress gateways, and their internal networks, of {@code installation} that have
     * had no egress sandbox for {@code idle} ({@link IdleGateways}).
     */
    @Override
    public List<String> reclaimIdleGateways(String installation, Duration idle) {
        return idleGateways.get().reclaim(installation, idle);
    }

    TenantNetworks networks() {
        return networks.get();
    }

    /**
     * Creates from the default image, or from {@code input.image()} when it is on the allowlist —
     * checked here too, not only by the ensure parser, because this is the one place a requested
     * name becomes an engine reference (where {@code 4f2a} would mean an image id).
     */
    @Override
    public SandboxHandle create(SandboxCreateInput input) {
        boolean explicitImage = input.image().isPresent();
        input.image().ifPresent(i -> settings.allowedImages().check(i));
        String image = input.image().orElse(settings.image());
        return containers.createFrom(
                image, input, explicitImage ? ImageRole.REQUESTED : ImageRole.DEFAULT, Map.of());
    }

    /** The managed container {@code id}, started again if it was stopped; absent if gone. */
    @Override
    public Optional<SandboxHandle> resume(String id) {
        return managed.resume(id);
    }

    /**
     * Stops (short grace) and removes the container with its volumes. Gone = success; a container
     * that is not agentbox's is left alone (as if gone). A fork's private image is removed with it.
     */
    @Override
    public void destroy(String id) {
        managed.destroy(id);
    }

    @Override
    public List<ManagedSandbox> listManaged() {
        return managed.listManaged();
    }

    /**
     * Only images this provider committed (labelled as snapshots) can be restored; anything else is
     * not-found.
     */
    @Override
    public SandboxHandle restoreSnapshot(String snapshotId, SandboxCreateInput input) {
        return snapshots.restoreSnapshot(snapshotId, input);
    }

    /**
     * Deletes a snapshot image; refuses images that are not agentbox snapshots (never a base
     * image).
     */
    @Override
    public void deleteSnapshot(String snapshotId) {
        snapshots.deleteSnapshot(snapshotId);
    }

    /** Commits the container to {@code <snapshotRepository>:<sandbox id>-<millis>}. */
    SnapshotRef snapshot(String containerName, Optional<String> label) {
        return snapshots.snapshot(containerName, label);
    }

    /**
     * Fork = commit + create from that image; the fork carries the source's key and tenant labels.
     */
    SandboxHandle fork(String containerName) {
        return snapshots.fork(containerName);
    }

    /** The host URL of a published container port. */
    /**
     * The host URL of a port published at creation ({@code policy.ports} with network bridge);
     * empty for any other port.
     */
    Optional<String> portUrl(String containerName, int port) {
        SandboxPorts.checkRange(port);
        InspectContainerResponse c = inspect(containerName);
        Ports ports = c.getNetworkSettings() == null ? null : c.getNetworkSettings().getPorts();
        Ports.Binding[] b = ports == null ? null : ports.getBindings().get(ExposedPort.tcp(port));
        if (b == null || b.length == 0 || b[0].getHostPortSpec() == null) {
            return Optional.empty();
        }
        return Optional.of("http://" + urlHost() + ":" + b[0].getHostPortSpec());
    }

    /**
     * The container's address on its sandbox network (the tenant network of a bridge sandbox),
     * which the host reaches without publishing anything: the host rule on {@code abr+} refuses
     * only connections the sandbox opens, not replies to the host's own.
     */
    InetSocketAddress portAddress(String containerName, int port) {
        SandboxPorts.checkRange(port);
        InspectContainerResponse c = inspect(containerName);
        Map<String, ContainerNetwork> networks =
                c.getNetworkSettings() == null ? null : c.getNetworkSettings().getNetworks();
        String ip = null;
        if (networks != null) {
            for (Map.Entry<String, ContainerNetwork> n : networks.entrySet()) {
                String candidate = n.getValue() == null ? null : n.getValue().getIpAddress();
                if (candidate != null && !candidate.isBlank()) {
                    if (ip == null || n.getKey().startsWith(TenantNetworks.NAME_PREFIX)) {
                        ip = candidate;
                    }
                }
            }
        }
        if (ip == null) {
            throw SandboxPorts.unreachable(
                    containerName,
                    "has no network address (policy.network none), so none of its ports can be"
                            + " reached; ensure it with policy.network bridge.");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("engine reported a malformed address " + ip, e);
        }
    }

    private InspectContainerResponse inspect(String containerName) {
        return DockerEngine.call(
                "container inspect",
                () -> engine().client().inspectContainerCmd(containerName).exec());
    }

    private String urlHost() {
        URI uri = URI.create(settings.host());
        if ("tcp".equals(uri.getScheme())
                || "http".equals(uri.getScheme())
                || "https".equals(uri.getScheme())) {
            return uri.getHost();
        }
        return "0.0.0.0".equals(settings.publishHost()) ? "127.0.0.1" : settings.publishHost();
    }

    /**
     * A valid container name for a requested id: itself when it is one, otherwise a sanitized form
     * plus a hash.
     */
    static String containerName(String requestedId) {
        String base = "agentbox-" + requestedId;
        if (NAME_OK.matcher(base).matches()) {
            return base;
        }
        String cleaned = requestedId.replaceAll("[^a-zA-Z0-9_.-]", "-");
        if (cleaned.length() > 40) {
            cleaned = cleaned.substring(0, 40);
        }
        return "agentbox-" + cleaned + "-" + sha256Hex(requestedId).substring(0, 16);
    }

    static String sha256Hex(String s) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
