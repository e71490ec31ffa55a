package dev.agentbox.sandbox.docker;

import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.*;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.BadRequestException;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ports;
import dev.agentbox.platform.Incident;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.DaemonThreads;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxExistsException;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.SnapshotRef;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
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
 * network ({@link TenantNetworks}), never the engine's default bridge; no mounts at all (never the
 * Docker socket); {@code init=true} so PID 1 forwards signals and reaps orphans. Opt-in: a non-root
 * user, a read-only root filesystem, a writable-layer size (docs/hardening.md says what each
 * costs).
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

    /** On a sandbox: its network mode as the policy named it ({@code bridge}); absent = none. */
    static final String NETWORK = "dev.agentbox.network";

    private static final Logger LOG = Logger.getLogger(DockerSandboxProvider.class.getName());
    private static final Pattern NAME_OK = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.-]{0,100}");
    private static final com.github.dockerjava.api.model.Capability[] CAPS_KEPT = {
        com.github.dockerjava.api.model.Capability.CHOWN,
        com.github.dockerjava.api.model.Capability.DAC_OVERRIDE,
        com.github.dockerjava.api.model.Capability.FOWNER,
        com.github.dockerjava.api.model.Capability.FSETID,
        com.github.dockerjava.api.model.Capability.SETUID,
        com.github.dockerjava.api.model.Capability.SETGID,
        com.github.dockerjava.api.model.Capability.KILL
    };

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

    private final DockerSettings settings;
    private final SandboxLimits limits;
    private final ThreadFactory threads;
    private final Clock clock;
    private volatile DockerEngine engine;
    private volatile java.util.concurrent.ExecutorService workers;
    private volatile TenantNetworks networks;
    private volatile int engineCpus;

    /** For CDI proxies only. */
    protected DockerSandboxProvider() {
        this.settings = null;
        this.limits = null;
        this.threads = null;
        this.clock = null;
    }

    @Inject
    public DockerSandboxProvider(Config config, Clock clock) {
        this(
                DockerSettings.fromConfig(config),
                SandboxLimits.fromConfig(config),
                new DaemonThreads("agentbox-docker"),
                clock);
    }

    public DockerSandboxProvider(DockerSettings settings, ThreadFactory threads, Clock clock) {
        this(settings, SandboxLimits.defaults(), threads, clock);
    }

    public DockerSandboxProvider(
            DockerSettings settings, SandboxLimits limits, ThreadFactory threads, Clock clock) {
        this.settings = settings;
        this.limits = limits;
        this.threads = threads;
        this.clock = clock;
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
        DockerEngine e = engine;
        if (e == null) {
            synchronized (this) {
                if (engine == null) {
                    engine = new DockerEngine(settings.host());
                }
                e = engine;
            }
        }
        return e;
    }

    /**
     * Short tasks off docker-java's callback threads (which are cancelled once a stream completes).
     */
    java.util.concurrent.ExecutorService workers() {
        java.util.concurrent.ExecutorService w = workers;
        if (w == null) {
            synchronized (this) {
                if (workers == null) {
                    workers = Executors.newCachedThreadPool(threads);
                }
                w = workers;
            }
        }
        return w;
    }

    @PreDestroy
    public void close() {
        try {
            if (engine != null) {
                engine.close();
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing the docker client", e);
        }
        if (workers != null) {
            workers.shutdownNow();
        }
    }

    TenantNetworks networks() {
        TenantNetworks n = networks;
        if (n == null) {
            synchronized (this) {
                if (networks == null) {
                    networks = new TenantNetworks(engine());
                }
                n = networks;
            }
        }
        return n;
    }

    /** How many CPUs the engine has (asked once); 0 when the engine does not say. */
    private int engineCpus() {
        int n = engineCpus;
        if (n == 0) {
            Integer reported =
                    DockerEngine.call("info", () -> engine().client().infoCmd().exec()).getNCPU();
            n = reported == null ? 0 : reported;
            engineCpus = n;
        }
        return n;
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
        return createFrom(
                image, input, explicitImage ? ImageRole.REQUESTED : ImageRole.DEFAULT, Map.of());
    }

    private enum ImageRole {
        DEFAULT,
        REQUESTED,
        SNAPSHOT
    }

    private SandboxHandle createFrom(
            String image,
            SandboxCreateInput input,
            ImageRole role,
            Map<String, String> extraLabels) {
        String name =
                input.requestedId()
                        .map(DockerSandboxProvider::containerName)
                        .orElseGet(() -> "agentbox-" + UUID.randomUUID());
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(SandboxLabels.MANAGED, "true");
        labels.putAll(input.labels());
        labels.putAll(extraLabels);
        SandboxPolicy policy = input.policy();
        checkPolicy(policy);
        boolean bridge = policy.network() == SandboxPolicy.Network.BRIDGE;
        if (bridge) {
            labels.put(NETWORK, "bridge");
        }
        HostConfig host =
                HostConfig.newHostConfig()
                        .withInit(true)
                        .withPrivileged(false)
                        .withSecurityOpts(List.of("no-new-privileges:true"))
                        .withCapDrop(com.github.dockerjava.api.model.Capability.ALL)
                        .withCapAdd(CAPS_KEPT)
                        .withMemory(
                                policy.memoryMb().orElse(settings.defaultMemoryMb())
                                        * 1024L
                                        * 1024L)
                        .withMemorySwap(
                                policy.memoryMb().orElse(settings.defaultMemoryMb())
                                        * 1024L
                                        * 1024L)
                        .withNanoCPUs(
                                (long)
                                        (policy.cpus().orElse(settings.defaultCpus())
                                                * 1_000_000_000L))
                        .withPidsLimit((long) policy.pids().orElse(settings.defaultPids()))
                        .withNetworkMode(
                                bridge ? networks().ensure(input.tenant().orElse("")) : "none");
        ContainerHardening.apply(settings.hardening(), host);
        List<ExposedPort> exposed = new ArrayList<>();
        if (bridge && !policy.ports().isEmpty()) {
            Ports bindings = new Ports();
            for (int p : policy.ports()) {
                ExposedPort ep = ExposedPort.tcp(p);
                exposed.add(ep);
                bindings.bind(ep, Ports.Binding.bindIp(settings.publishHost()));
            }
            host.withPortBindings(bindings);
        }
        List<String> env =
                input.env().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
        CreateContainerResponse created =
                createContainer(
                        image,
                        name,
                        role,
                        () -> {
                            CreateContainerCmd cmd =
                                    engine().client()
                                            .createContainerCmd(image)
                                            .withName(name)
                                            .withLabels(labels)
                                            .withEnv(env)
                                            .withWorkingDir(WORKSPACE)
                                            .withCmd("sleep", KEEP_ALIVE_SECONDS)
                                            .withExposedPorts(exposed)
                                            .withHostConfig(host);
                            settings.hardening().user().ifPresent(cmd::withUser);
                            return cmd.exec();
                        });
        try {
            DockerEngine.run(
                    "container start",
                    () -> engine().client().startContainerCmd(created.getId()).exec());
            return new DockerSandbox(this, name);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            Incident incident =
                    Incident.log(LOG, Level.WARNING, "the engine could not start " + name, e);
            ProblemException p =
                    new ProblemException(
                            ProblemCode.PROVIDER_UNAVAILABLE,
                            incident.text("The Docker engine could not start sandbox " + name),
                            Map.of("incident", incident.id()),
                            null);
            removeQuietly(created.getId(), p);
            throw p;
        } catch (RuntimeException e) {
            removeQuietly(created.getId(), e);
            throw e;
        }
    }

    /** What the parser cannot know: whether bridge is on here, and how many CPUs the engine has. */
    private void checkPolicy(SandboxPolicy policy) {
        boolean bridge = policy.network() == SandboxPolicy.Network.BRIDGE;
        if (bridge && !settings.hardening().bridgeEnabled()) {
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    "policy.network \"bridge\" is disabled on this server (agentbox.docker.bridge-enabled)",
                    Map.of("field", "policy.network"),
                    null);
        }
        if (policy.cpus().isPresent()
                && engineCpus() > 0
                && policy.cpus().getAsDouble() > engineCpus()) {
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    "policy.cpus is above this server's ceiling of "
                            + engineCpus()
                            + " (the engine's CPUs)",
                    Map.of("field", "policy.cpus", "ceiling", engineCpus()),
                    null);
        }
        if (!bridge && !policy.ports().isEmpty()) {
            throw ProblemException.invalidRequest("policy.ports needs policy.network=bridge");
        }
    }

    /**
     * Runs the container create and maps the engine's refusals: a missing image by its role, a name
     * in use, settings the engine rejects ({@code 400}, the engine's words only in the log).
     */
    private CreateContainerResponse createContainer(
            String image,
            String name,
            ImageRole role,
            java.util.function.Supplier<CreateContainerResponse> create) {
        try {
            return DockerEngine.call("container create", create);
        } catch (NotFoundException e) {
            throw switch (role) {
                case REQUESTED ->
                        ProblemException.invalidRequest(
                                "Image "
                                        + image
                                        + " is not present on the Docker engine (agentbox never pulls images).");
                case SNAPSHOT ->
                        ProblemException.notFound("Snapshot " + image + " does not exist.");
                case DEFAULT ->
                        ProblemException.providerUnavailable(
                                "The configured sandbox image "
                                        + image
                                        + " is not present on the Docker engine (agentbox never pulls images).",
                                e);
            };
        } catch (ConflictException e) {
            throw new SandboxExistsException(name);
        } catch (BadRequestException e) {
            // e.g. "Range of CPUs is from 0.01 to 2.00", "Minimum memory limit allowed is 6MB":
            // the caller's settings, but the engine's words stay in the log.
            Incident incident =
                    Incident.log(LOG, Level.WARNING, "the engine refused to create " + name, e);
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    incident.text(
                            "The Docker engine refused this sandbox's settings"
                                    + " (image, policy.memoryMb, policy.cpus, policy.pids or policy.ports)"),
                    Map.of("field", "policy", "incident", incident.id()),
                    null);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            Incident incident =
                    Incident.log(LOG, Level.WARNING, "the engine failed to create " + name, e);
            throw new ProblemException(
                    ProblemCode.PROVIDER_UNAVAILABLE,
                    incident.text("The Docker engine could not create the sandbox"),
                    Map.of("incident", incident.id()),
                    null);
        }
    }

    private void removeQuietly(String containerId, RuntimeException cause) {
        try {
            engine().client()
                    .removeContainerCmd(containerId)
                    .withForce(true)
                    .withRemoveVolumes(true)
                    .exec();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public Optional<SandboxHandle> resume(String id) {
        InspectContainerResponse c;
        try {
            c =
                    DockerEngine.call(
                            "container inspect",
                            () -> engine().client().inspectContainerCmd(id).exec());
        } catch (NotFoundException e) {
            return Optional.empty();
        }
        Map<String, String> labels = c.getConfig().getLabels();
        if (labels == null || !"true".equals(labels.get(SandboxLabels.MANAGED))) {
            return Optional.empty();
        }
        InspectContainerResponse.ContainerState state = c.getState();
        if (state != null
                && ("removing".equals(state.getStatus()) || "dead".equals(state.getStatus()))) {
            return Optional.empty();
        }
        if (state == null || !Boolean.TRUE.equals(state.getRunning())) {
            try {
                DockerEngine.run(
                        "container start",
                        () -> engine().client().startContainerCmd(c.getId()).exec());
            } catch (NotModifiedException e) {
                // already running
            } catch (NotFoundException e) {
                return Optional.empty();
            }
        }
        return Optional.of(new DockerSandbox(this, c.getName().replaceFirst("^/", "")));
    }

    /**
     * Stops (short grace) and removes the container with its volumes. Gone = success; a container
     * that is not agentbox's is left alone (as if gone). A fork's private image is removed with it.
     */
    @Override
    public void destroy(String id) {
        InspectContainerResponse c;
        try {
            c =
                    DockerEngine.call(
                            "container inspect",
                            () -> engine().client().inspectContainerCmd(id).exec());
        } catch (NotFoundException e) {
            return;
        }
        Map<String, String> labels =
                c.getConfig().getLabels() == null ? Map.of() : c.getConfig().getLabels();
        if (!"true".equals(labels.get(SandboxLabels.MANAGED))) {
            LOG.log(
                    Level.WARNING,
                    "refusing to destroy container {0}: it is not labelled {1}=true",
                    new Object[] {id, SandboxLabels.MANAGED});
            return;
        }
        try {
            DockerEngine.run(
                    "container stop",
                    () ->
                            engine().client()
                                    .stopContainerCmd(c.getId())
                                    .withTimeout((int) settings.stopGrace().toSeconds())
                                    .exec());
        } catch (NotFoundException e) {
            return;
        } catch (NotModifiedException e) {
            // already stopped
        }
        try {
            DockerEngine.run(
                    "container remove",
                    () ->
                            engine().client()
                                    .removeContainerCmd(c.getId())
                                    .withForce(true)
                                    .withRemoveVolumes(true)
                                    .exec());
        } catch (NotFoundException e) {
            // gone already: success
        } catch (ConflictException e) {
            // removal already in progress
            LOG.log(Level.FINE, "removal of {0} already in progress", id);
        }
        String forkImage = labels.get(FORK_IMAGE);
        if (forkImage != null) {
            try {
                DockerEngine.run(
                        "image remove",
                        () -> engine().client().removeImageCmd(forkImage).withForce(false).exec());
            } catch (NotFoundException | ConflictException e) {
                // gone already, or another fork still uses it
            }
        }
    }

    @Override
    public List<ManagedSandbox> listManaged() {
        List<Container> list =
                DockerEngine.call(
                        "container list",
                        () ->
                                engine().client()
                                        .listContainersCmd()
                                        .withShowAll(true)
                                        .withLabelFilter(Map.of(SandboxLabels.MANAGED, "true"))
                                        .exec());
        return list.stream()
                .map(
                        c ->
                                new ManagedSandbox(
                                        c.getNames() != null && c.getNames().length > 0
                                                ? c.getNames()[0].replaceFirst("^/", "")
                                                : c.getId(),
                                        c.getLabels() == null ? Map.of() : c.getLabels(),
                                        Instant.ofEpochSecond(
                                                c.getCreated() == null ? 0 : c.getCreated())))
                .toList();
    }

    /**
     * Only images this provider committed (labelled as snapshots) can be restored; anything else is
     * not-found.
     */
    @Override
    public SandboxHandle restoreSnapshot(String snapshotId, SandboxCreateInput input) {
        if (!isSnapshotImage(snapshotId)) {
            throw ProblemException.notFound("Snapshot " + snapshotId + " does not exist.");
        }
        return createFrom(snapshotId, input, ImageRole.SNAPSHOT, Map.of());
    }

    /**
     * Deletes a snapshot image; refuses images that are not agentbox snapshots (never a base
     * image).
     */
    @Override
    public void deleteSnapshot(String snapshotId) {
        if (!isSnapshotImage(snapshotId)) {
            return;
        }
        try {
            DockerEngine.run(
                    "image remove",
                    () -> engine().client().removeImageCmd(snapshotId).withForce(true).exec());
        } catch (NotFoundException e) {
            // already gone
        }
    }

    private boolean isSnapshotImage(String ref) {
        try {
            Map<String, String> labels =
                    DockerEngine.call(
                                    "image inspect",
                                    () -> engine().client().inspectImageCmd(ref).exec())
                            .getConfig()
                            .getLabels();
            return labels != null && labels.containsKey(SandboxLabels.SNAPSHOT_OF);
        } catch (NotFoundException e) {
            return false;
        }
    }

    /** Commits the container to {@code <snapshotRepository>:<sandbox id>-<millis>}. */
    SnapshotRef snapshot(String containerName, Optional<String> label) {
        String tag = tagFor(containerName + "-" + clock.millis());
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(SandboxLabels.MANAGED, "true");
        labels.put(SandboxLabels.SNAPSHOT_OF, containerName);
        label.ifPresent(l -> labels.put("dev.agentbox.snapshot-label", l));
        DockerEngine.call(
                "container commit",
                () ->
                        engine().client()
                                .commitCmd(containerName)
                                .withRepository(settings.snapshotRepository())
                                .withTag(tag)
                                .withLabels(labels)
                                .exec());
        return new SnapshotRef(settings.snapshotRepository() + ":" + tag, label);
    }

    /**
     * Fork = commit + create from that image; the fork carries the source's key and tenant labels.
     */
    SandboxHandle fork(String containerName) {
        InspectContainerResponse c =
                DockerEngine.call(
                        "container inspect",
                        () -> engine().client().inspectContainerCmd(containerName).exec());
        SnapshotRef ref = snapshot(containerName, Optional.of("fork"));
        Map<String, String> labels =
                c.getConfig().getLabels() == null ? Map.of() : c.getConfig().getLabels();
        SandboxCreateInput input = SandboxCreateInput.defaults();
        if (labels.containsKey(SandboxLabels.KEY)) {
            input =
                    input.withKey(
                            labels.get(SandboxLabels.KEY),
                            labels.getOrDefault(SandboxLabels.TENANT, ""));
        }
        if (labels.containsKey(SandboxLabels.INSTALLATION)) {
            input = input.withInstallation(labels.get(SandboxLabels.INSTALLATION));
        }
        HostConfig hc = c.getHostConfig();
        SandboxPolicy policy = SandboxPolicy.defaults();
        // The label, not the network mode: a bridge sandbox's mode is its tenant network's id.
        if ("bridge".equals(labels.get(NETWORK))) {
            policy = policy.withNetwork(SandboxPolicy.Network.BRIDGE);
            ExposedPort[] exposedPorts = c.getConfig().getExposedPorts();
            if (exposedPorts != null) {
                policy =
                        policy.withPorts(
                                Arrays.stream(exposedPorts).map(ExposedPort::getPort).toList());
            }
        }
        if (hc != null
                && hc.getMemory() != null
                && hc.getNanoCPUs() != null
                && hc.getPidsLimit() != null) {
            policy =
                    policy.withLimits(
                            (int) (hc.getMemory() / (1024 * 1024)),
                            hc.getNanoCPUs() / 1e9,
                            hc.getPidsLimit().intValue());
        }
        try {
            return createFrom(
                    ref.id(),
                    input.withPolicy(policy),
                    ImageRole.SNAPSHOT,
                    Map.of(FORK_IMAGE, ref.id()));
        } catch (RuntimeException e) {
            try {
                deleteSnapshot(ref.id());
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The host URL of a published container port. */
    String portUrl(String containerName, int port) {
        InspectContainerResponse c =
                DockerEngine.call(
                        "container inspect",
                        () -> engine().client().inspectContainerCmd(containerName).exec());
        Ports ports = c.getNetworkSettings() == null ? null : c.getNetworkSettings().getPorts();
        Ports.Binding[] b = ports == null ? null : ports.getBindings().get(ExposedPort.tcp(port));
        if (b == null || b.length == 0 || b[0].getHostPortSpec() == null) {
            throw ProblemException.invalidRequest(
                    "Port "
                            + port
                            + " is not published by sandbox "
                            + containerName
                            + " (declare it in policy.ports with network bridge).");
        }
        return "http://" + urlHost() + ":" + b[0].getHostPortSpec();
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

    private static String tagFor(String s) {
        String t = s.replaceAll("[^a-zA-Z0-9_.-]", "-");
        if (t.length() > 128) {
            t = t.substring(t.length() - 128);
        }
        return t.replaceFirst("^[.-]+", "x");
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
