package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.exception.BadRequestException;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ports;
import dev.agentbox.platform.Incident;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.egress.CaTrust;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxExistsException;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Creates and starts the container of a new sandbox, with the hardening described on {@link
 * DockerSandboxProvider}.
 *
 * <p>Invariants: every container it creates is labelled {@link SandboxLabels#MANAGED}{@code =true}
 * and runs its keep-alive command — the channel helper when the image carries it (see {@link
 * SandboxChannels}), else {@code sleep} — in {@link DockerSandboxProvider#WORKSPACE}; the policy is
 * checked against this server (bridge enabled, the engine's CPUs) before the engine is asked; a
 * container that was created but could not be started is removed again; what the engine refuses
 * reaches the caller as a problem with a safe detail, the engine's own words only in the log.
 */
final class ContainerFactory {

    /** Where the image of a create came from: it decides what a missing image means. */
    enum ImageRole {
        DEFAULT,
        REQUESTED,
        SNAPSHOT
    }

    private static final Logger LOG = Logger.getLogger(ContainerFactory.class.getName());
    private static final com.github.dockerjava.api.model.Capability[] CAPS_KEPT = {
        com.github.dockerjava.api.model.Capability.CHOWN,
        com.github.dockerjava.api.model.Capability.DAC_OVERRIDE,
        com.github.dockerjava.api.model.Capability.FOWNER,
        com.github.dockerjava.api.model.Capability.FSETID,
        com.github.dockerjava.api.model.Capability.SETUID,
        com.github.dockerjava.api.model.Capability.SETGID,
        com.github.dockerjava.api.model.Capability.KILL
    };

    private final DockerSandboxProvider provider;
    private volatile int engineCpus;

    ContainerFactory(DockerSandboxProvider provider) {
        this.provider = provider;
    }

    private DockerSettings settings() {
        return provider.settings();
    }

    private DockerEngine engine() {
        return provider.engine();
    }

    private TenantNetworks networks() {
        return provider.networks();
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
     * Creates and starts a container from {@code image}, which the caller has already vetted for
     * its role (the configured default, an allowlisted name, or a snapshot this provider
     * committed); {@code extraLabels} are added to the input's labels.
     */
    SandboxHandle createFrom(
            String image,
            SandboxCreateInput input,
            ImageRole role,
            Map<String, String> extraLabels) {
        for (int attempt = 1; ; attempt++) {
            try {
                return createOnce(image, input, role, extraLabels);
            } catch (EgressNetworkGone e) {
                // an idle reclaim removed the tenant's network between its ensure and this
                // start (IdleGateways, R4): the next attempt makes it and the gateway again
                if (attempt >= EGRESS_ATTEMPTS) {
                    throw e.problem;
                }
                LOG.info("the egress network of a new sandbox was reclaimed; starting again");
                // apart from other ensures caught in the same reclaim, so they do not all
                // meet the next one together
                try {
                    Thread.sleep(
                            java.util.concurrent.ThreadLocalRandom.current().nextLong(50, 250));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e.problem;
                }
            }
        }
    }

    /** Attempts of an egress create whose network is reclaimed under it. */
    private static final int EGRESS_ATTEMPTS = 20;

    /** The egress network of a sandbox being made went away before it started. */
    private static final class EgressNetworkGone extends RuntimeException {
        private final ProblemException problem;

        EgressNetworkGone(ProblemException problem) {
            super(problem.getMessage(), problem, false, false);
            this.problem = problem;
        }
    }

    private SandboxHandle createOnce(
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
            labels.put(DockerSandboxProvider.NETWORK, "bridge");
        }
        // An egress sandbox's one way out is its tenant's gateway (docs/egress.md); the labels
        // keep its rules with the container, e.g. for a fork.
        EgressGateways.Gateway gateway = null;
        EgressGateways.Plan plan = null;
        if (policy.network() == SandboxPolicy.Network.EGRESS) {
            // On a network with the gateway's address reserved, the sandbox is created before
            // the gateway is ensured: from then on no idle reclaim can take the gateway
            // (IdleGateways, R2 lists created containers too).
            plan = provider.gateways().plan(scope(input), input.installation());
            gateway = plan.gateway();
            labels.put(DockerSandboxProvider.NETWORK, "egress");
            labels.put(DockerSandboxProvider.EGRESS, EgressLabel.of(policy.egress()));
        }
        HostConfig host =
                HostConfig.newHostConfig()
                        .withInit(true)
                        .withPrivileged(false)
                        .withSecurityOpts(List.of("no-new-privileges:true"))
                        .withCapDrop(com.github.dockerjava.api.model.Capability.ALL)
                        .withCapAdd(CAPS_KEPT)
                        .withMemory(
                                policy.memoryMb().orElse(settings().defaultMemoryMb())
                                        * 1024L
                                        * 1024L)
                        .withMemorySwap(
                                policy.memoryMb().orElse(settings().defaultMemoryMb())
                                        * 1024L
                                        * 1024L)
                        .withNanoCPUs(
                                (long)
                                        (policy.cpus().orElse(settings().defaultCpus())
                                                * 1_000_000_000L))
                        .withPidsLimit((long) policy.pids().orElse(settings().defaultPids()))
                        .withNetworkMode(networkMode(policy, input, gateway));
        if (gateway != null) {
            // the engine's resolver in the sandbox forwards to the gateway's, never the host's
            host.withDns(List.of(gateway.address()));
            // no ICMP at all: the engine opens ping sockets to every group by default
            host.withSysctls(Map.of("net.ipv4.ping_group_range", "1 0"));
        }
        ContainerHardening.apply(settings().hardening(), host);
        List<ExposedPort> exposed = new ArrayList<>();
        if (bridge && !policy.ports().isEmpty()) {
            Ports bindings = new Ports();
            for (int p : policy.ports()) {
                ExposedPort ep = ExposedPort.tcp(p);
                exposed.add(ep);
                bindings.bind(ep, Ports.Binding.bindIp(settings().publishHost()));
            }
            host.withPortBindings(bindings);
        }
        Map<String, String> envMap = new LinkedHashMap<>(input.env());
        if (gateway != null) {
            envMap.putAll(EgressGateways.proxyEnv(gateway));
            envMap.put("NODE_EXTRA_CA_CERTS", EGRESS_CA);
            envMap.put("SSL_CERT_FILE", EGRESS_BUNDLE);
            envMap.put("REQUESTS_CA_BUNDLE", EGRESS_BUNDLE);
        }
        List<String> env =
                envMap.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
        boolean channel = withChannel(image, name, host, labels);
        String[] keepAlive =
                channel
                        ? new String[] {
                            SandboxChannels.HELPER,
                            "serve",
                            SandboxChannels.MOUNT + "/" + SandboxChannels.SOCKET
                        }
                        : new String[] {"sleep", DockerSandboxProvider.KEEP_ALIVE_SECONDS};
        CreateContainerResponse created;
        try {
            created =
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
                                                .withWorkingDir(DockerSandboxProvider.WORKSPACE)
                                                .withCmd(keepAlive)
                                                .withExposedPorts(exposed)
                                                .withHostConfig(host);
                                settings().hardening().user().ifPresent(cmd::withUser);
                                return cmd.exec();
                            });
        } catch (SandboxExistsException e) {
            throw e; // the folder is the existing container's: left alone
        } catch (RuntimeException e) {
            if (channel) {
                provider.channels().forget(name);
            }
            throw e;
        }
        try {
            if (plan != null && plan.networkId().isPresent()) {
                EgressGateways.Gateway planned = gateway;
                gateway = provider.gateways().ensure(scope(input), input.installation());
                if (!gateway.address().equals(planned.address())
                        || !provider.gateways().sameNetwork(plan)) {
                    // reclaimed and made again meanwhile, maybe in another subnet
                    removeQuietly(created.getId(), null);
                    throw new EgressNetworkGone(
                            ProblemException.providerUnavailable(
                                    "The egress network of this sandbox was made again while it"
                                            + " was being created.",
                                    null));
                }
            }
            DockerEngine.run(
                    "container start",
                    () -> engine().client().startContainerCmd(created.getId()).exec());
            if (channel) {
                provider.channels().awaitListening(name);
            }
            if (gateway != null) {
                // before any command runs: the address may be a destroyed sandbox's, whose
                // rules are replaced here; and in the gateway that has the name once this
                // returns, though an idle reclaim may be taking it away (IdleGateways)
                gateway =
                        provider.gateways()
                                .attach(
                                        gateway,
                                        name,
                                        created.getId(),
                                        policy.egress(),
                                        input.installation());
                CaTrust.install(
                        new DockerSandbox(provider, name),
                        provider.gateways().caCertificate(gateway),
                        EGRESS_CA,
                        EGRESS_BUNDLE,
                        true);
            }
            return new DockerSandbox(provider, name);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            // the network was made again under the created container (an idle reclaim, then
            // another ensure): its start then collides with the new network's addresses; a new
            // container on the new network does not
            boolean networkGone =
                    gateway != null
                            && (!provider.gateways().networkExists(gateway.network())
                                    || (plan.networkId().isPresent()
                                            && !provider.gateways().sameNetwork(plan))
                                    || networkChurn(String.valueOf(e.getMessage())));
            Incident incident =
                    Incident.log(
                            LOG,
                            networkGone ? Level.INFO : Level.WARNING,
                            "the engine could not start " + name,
                            e);
            ProblemException p =
                    new ProblemException(
                            ProblemCode.PROVIDER_UNAVAILABLE,
                            incident.text("The Docker engine could not start sandbox " + name),
                            Map.of("incident", incident.id()),
                            null);
            removeQuietly(created.getId(), p);
            if (networkGone) {
                throw new EgressNetworkGone(p);
            }
            throw p;
        } catch (EgressNetworkGone e) {
            throw e;
        } catch (RuntimeException e) {
            removeQuietly(created.getId(), e);
            throw e;
        }
    }

    /**
     * What the engine says when a container created on an egress network starts after that network
     * was removed and made again (another subnet, or its addresses given out anew).
     */
    static boolean networkChurn(String engineMessage) {
        return engineMessage.contains("Address already in use")
                || engineMessage.contains("does not belong to any of this network's subnets")
                || (engineMessage.contains("network") && engineMessage.contains("not found"));
    }

    /** Where an egress sandbox finds the installation's CA (and its system roots with it). */
    static final String EGRESS_CA = "/etc/agentbox/egress-ca.pem";

    static final String EGRESS_BUNDLE = "/etc/agentbox/ca-bundle.pem";

    /** Whose networks and gateway the sandbox joins: its tenant's, within its installation. */
    private static String scope(SandboxCreateInput input) {
        return NetworkScope.of(input.installation(), input.tenant().orElse(""));
    }

    private String networkMode(
            SandboxPolicy policy, SandboxCreateInput input, EgressGateways.Gateway gateway) {
        return switch (policy.network()) {
            case NONE -> "none";
            case BRIDGE -> networks().ensure(scope(input));
            case EGRESS -> gateway.network();
        };
    }

    /** What the parser cannot know: whether bridge is on here, and how many CPUs the engine has. */
    private void checkPolicy(SandboxPolicy policy) {
        boolean bridge = policy.network() == SandboxPolicy.Network.BRIDGE;
        if (bridge && !settings().hardening().bridgeEnabled()) {
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

    /**
     * Gives the container a channel when it is on here and the image carries the helper: its socket
     * folder bind-mounted, the label that says so. False (and nothing changed) otherwise.
     */
    private boolean withChannel(
            String image, String name, HostConfig host, Map<String, String> labels) {
        SandboxChannels channels = provider.channels();
        if (!channels.enabled()) {
            return false;
        }
        Map<String, String> imageLabels;
        try {
            imageLabels = engine().client().inspectImageCmd(image).exec().getConfig().getLabels();
        } catch (RuntimeException e) {
            return false; // a missing image is reported by the create itself
        }
        if (imageLabels == null || !"1".equals(imageLabels.get(SandboxChannels.IMAGE_LABEL))) {
            return false;
        }
        try {
            java.nio.file.Path dir = channels.prepare(name);
            host.withBinds(
                    new com.github.dockerjava.api.model.Bind(
                            dir.toString(),
                            new com.github.dockerjava.api.model.Volume(SandboxChannels.MOUNT)));
            labels.put(SandboxChannels.CONTAINER_LABEL, "1");
            return true;
        } catch (java.io.IOException e) {
            LOG.log(
                    Level.WARNING,
                    "no channel for sandbox {0}: its socket folder could not be made ({1}); it uses docker exec",
                    new Object[] {name, e.getMessage()});
            return false;
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
            if (cause != null) {
                cause.addSuppressed(e);
            }
        }
    }
}
