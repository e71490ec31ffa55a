package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.command.ConnectToNetworkCmd;
import com.github.dockerjava.api.command.CreateNetworkCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import com.github.dockerjava.api.model.RestartPolicy;
import com.github.dockerjava.api.model.Volume;
import dev.agentbox.platform.Incident;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.datapath.CapturedExec;
import dev.agentbox.sandbox.egress.DeniedFile;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.egress.GatewayRelease;
import dev.agentbox.sandbox.egress.GatewayRules;
import dev.agentbox.sandbox.egress.ProxyEnv;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.EgressAudit;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.SandboxLabels;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The egress gateways of {@code policy.network: egress} sandboxes (docs/egress.md): per tenant, an
 * internal network with no route out and one gateway container (Squid and dnsmasq) on it and on a
 * shared upstream network.
 *
 * <ul>
 *   <li>A sandbox joins only its tenant's internal network: its one way out is the gateway's proxy
 *       (HTTP by Host, HTTPS by CONNECT name and SNI), its DNS is the gateway's dnsmasq. Another
 *       tenant's sandboxes are on another network, behind another gateway with other files.
 *   <li>The gateway is a container of its own with restart policy {@code unless-stopped}, not a
 *       thread of a server: the egress of running sandboxes survives the death of any server, and
 *       every server of the installation finds and shares it by name (another installation on the
 *       same engine has its own: {@link NetworkScope}).
 *   <li>Rules are files in the gateway keyed by the sandbox's address ({@link GatewayRules}),
 *       written before the sandbox runs any command and removed when it is destroyed, only by the
 *       sandbox they name (an address can be reused by a later sandbox).
 *   <li>Both bridges are named {@code abr-…}, so the engine host's rule that keeps sandboxes off
 *       the host's own listeners covers gateways and egress sandboxes too (docs/hardening.md).
 *   <li>Gateways carry no {@link dev.agentbox.sandbox.spi.SandboxLabels#MANAGED} label: the orphan
 *       collector never takes them for sandboxes. A gateway made for an installation carries its
 *       {@link SandboxLabels#INSTALLATION} label: the reaper of that installation removes it, and
 *       its internal network, once it has had no egress sandbox for a while ({@link IdleGateways}).
 *   <li>So an ensure never trusts a gateway it found to stay: it rescues a gateway being reclaimed
 *       (its tomb, {@link #rescue}), starts again when the network or gateway went away under it,
 *       and checks after writing a sandbox's rules that they are in the gateway that has the name
 *       ({@link #attach}). The protocol, and why it cannot leave a sandbox without a way out, is on
 *       {@link IdleGateways}.
 * </ul>
 */
final class EgressGateways {

    static final String NETWORK_PREFIX = "agentbox-te-";
    static final String GATEWAY_PREFIX = "agentbox-egress-";
    static final String UPSTREAM_NETWORK = "agentbox-egress-up";
    static final String UPSTREAM_BRIDGE = "abr-egress-up";
    static final String CA_VOLUME = "agentbox-egress-ca";
    static final String GATEWAY_LABEL = "dev.agentbox.egress-gateway";

    /** What a gateway being reclaimed is renamed to, after its name and before a random suffix. */
    static final String TOMB_INFIX = "-idle-";

    /** Attempts of one ensure when the gateway or network is reclaimed under it. */
    private static final int ENSURE_ATTEMPTS = 4;

    /** How long a connect waits for a tomb to give up the gateway's reserved address. */
    private static final Duration ADDRESS_WAIT = Duration.ofSeconds(10);

    static final int PROXY_PORT = 3128;
    private static final String CONF = "/etc/agentbox-egress";
    private static final Duration READY = Duration.ofSeconds(20);
    private static final Duration EXEC_DEADLINE = Duration.ofSeconds(20);
    private static final Logger LOG = Logger.getLogger(EgressGateways.class.getName());

    /**
     * A tenant's gateway as a sandbox sees it. {@code addressFixed}: {@code address} is reserved
     * for the gateway on {@code network} ({@link GatewayAddress}) and outlives its container.
     * {@code id}: the container that had the name when the gateway was ensured (empty when not
     * known); {@link #serves} tells whether it still has it.
     */
    record Gateway(
            String container, String network, String address, boolean addressFixed, String id) {

        Gateway(String container, String network, String address, boolean addressFixed) {
            this(container, network, address, addressFixed, "");
        }

        /**
         * The proxy URL every command of the sandbox gets in its proxy variables: the gateway's
         * address where it is fixed (no name lookup per request), else its container's name (a
         * gateway made again on an older network may get another address; its name stays).
         */
        String proxyUrl() {
            return "http://" + (addressFixed ? address : container) + ":" + PROXY_PORT;
        }
    }

    private final DockerSandboxProvider provider;
    private final EgressSettings settings;

    /** The installation's CA certificate, once read from a gateway. */
    private volatile String caPem;

    /** Gateways this server has already checked and given the operator's files, by container id. */
    private final Set<String> configured = ConcurrentHashMap.newKeySet();

    /**
     * The brokered secrets this server gave each sandbox's gateway, by sandbox container, kept in
     * this server's memory only (never on disk, in a label or the database) until the sandbox is
     * released here, so that a gateway made again gets them back ({@link #restoreBrokered}).
     * Bounded: past {@value #MAX_HELD} sandboxes the oldest entry goes (its values then come back
     * only with its next ensure).
     */
    private final Map<String, Map<String, BrokeredSecret>> held =
            java.util.Collections.synchronizedMap(
                    new java.util.LinkedHashMap<>() {
                        @Override
                        protected boolean removeEldestEntry(
                                Map.Entry<String, Map<String, BrokeredSecret>> eldest) {
                            return size() > MAX_HELD;
                        }
                    });

    static final int MAX_HELD = 10_000;

    EgressGateways(DockerSandboxProvider provider, EgressSettings settings) {
        this.provider = provider;
        this.settings = settings;
    }

    EgressSettings settings() {
        return settings;
    }

    /** The 11 hex characters of a scope's names ({@link NetworkScope}, or a bare tenant). */
    static String hash(String scope) {
        return DockerSandboxProvider.sha256Hex("agentbox/tenant-egress/v1:" + scope)
                .substring(0, 11);
    }

    static String networkName(String scope) {
        return NETWORK_PREFIX + hash(scope);
    }

    static String gatewayName(String scope) {
        return GATEWAY_PREFIX + hash(scope);
    }

    /** The environment every command of an egress sandbox starts with. */
    static Map<String, String> proxyEnv(Gateway gw) {
        return ProxyEnv.of(gw.proxyUrl());
    }

    /**
     * The gateway of {@code scope} (a tenant within its installation, {@link NetworkScope}), made
     * (networks, CA volume, container) when missing and started when stopped. Safe when several
     * servers do it at once: each creation that loses a race to the engine looks up the winner's.
     */
    Gateway ensure(String scope) {
        return ensure(scope, Optional.empty());
    }

    /**
     * As {@link #ensure(String)}; a gateway made here is labelled as {@code installation}'s, so
     * that installation's reaper may reclaim it when idle ({@link IdleGateways}).
     */
    Gateway ensure(String scope, Optional<String> installation) {
        return ensureHashed(hash(scope), installation);
    }

    /**
     * The gateway a new sandbox of {@code scope} will have, before it is ensured, when its network
     * has the gateway's address reserved ({@link GatewayAddress}): the network made if missing, the
     * gateway not looked at ({@code id} empty; {@link #sameNetwork} tells later whether the network
     * is still that one). On a network without a reservation, the gateway ensured at once.
     */
    Plan plan(String scope, Optional<String> installation) {
        String hash = hash(scope);
        String network = internalNetwork(hash);
        Optional<Network> n = findNetwork(network);
        Optional<String> fixed = GatewayAddress.reservedOn(n.orElse(null));
        if (n.isEmpty() || fixed.isEmpty()) {
            return new Plan(ensureHashed(hash, installation), Optional.empty());
        }
        return new Plan(
                new Gateway(GATEWAY_PREFIX + hash, network, fixed.get(), true, ""),
                Optional.of(n.get().getId()));
    }

    /** A {@link #plan}: the gateway, and the id of its network when it was not ensured yet. */
    record Plan(Gateway gateway, Optional<String> networkId) {}

    /** Whether {@code plan}'s network is still the one it was planned on (not made again). */
    boolean sameNetwork(Plan plan) {
        return findNetwork(plan.gateway().network())
                .map(n -> plan.networkId().equals(Optional.of(n.getId())))
                .orElse(false);
    }

    /**
     * As {@link #ensure}, for the gateway of internal network {@code network}: the one an existing
     * sandbox is on, whatever scope its names were made from when it was created.
     */
    Gateway ensureFor(String network, Optional<String> installation) {
        if (!network.startsWith(NETWORK_PREFIX)) {
            throw new IllegalArgumentException("not an egress network: " + network);
        }
        return ensureHashed(network.substring(NETWORK_PREFIX.length()), installation);
    }

    /**
     * E1 of the idle-reclaim protocol ({@link IdleGateways}): the gateway by its name, rescued from
     * its tomb or made when it has none. An attempt whose network or gateway was reclaimed under it
     * (gone, or the name now another container's) starts again; any other failure is the ensure's.
     */
    private Gateway ensureHashed(String hash, Optional<String> installation) {
        String name = GATEWAY_PREFIX + hash;
        for (int attempt = 1; ; attempt++) {
            String[] used = new String[1];
            try {
                return ensureOnce(hash, installation, used);
            } catch (RuntimeException e) {
                if (attempt >= ENSURE_ATTEMPTS
                        || !(reclaimedUnder(hash, used[0], e)
                                || ContainerFactory.networkChurn(String.valueOf(e.getMessage())))) {
                    throw e;
                }
                LOG.log(
                        Level.INFO,
                        "egress gateway {0} was reclaimed during an ensure; starting again ({1})",
                        new Object[] {name, String.valueOf(e.getMessage())});
            }
        }
    }

    /** Whether the network or the gateway {@code used} went away (or lost its name) meanwhile. */
    private boolean reclaimedUnder(String hash, String used, RuntimeException failure) {
        try {
            return findNetwork(NETWORK_PREFIX + hash).isEmpty()
                    || !inspect(GATEWAY_PREFIX + hash)
                            .map(InspectContainerResponse::getId)
                            .equals(Optional.ofNullable(used));
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            return false;
        }
    }

    private Gateway ensureOnce(String hash, Optional<String> installation, String[] used) {
        String network = internalNetwork(hash);
        Optional<String> fixed = GatewayAddress.reservedOn(findNetwork(network).orElse(null));
        upstreamNetwork();
        String name = GATEWAY_PREFIX + hash;
        InspectContainerResponse c =
                inspect(name)
                        .or(() -> rescue(hash))
                        .orElseGet(() -> create(name, hash, installation));
        used[0] = c.getId();
        connect(network, c.getId(), fixed);
        if (!Boolean.TRUE.equals(c.getState().getRunning())) {
            try {
                DockerEngine.run(
                        "gateway start",
                        () -> engine().client().startContainerCmd(c.getId()).exec());
            } catch (NotModifiedException e) {
                // started by another server meanwhile
            } catch (DockerException e) {
                if (ContainerFactory.networkChurn(String.valueOf(e.getMessage()))) {
                    // connected while stopped to a network that was reclaimed and made again
                    // since: its endpoint still names the old network's address, and would on
                    // every start; the next attempt connects it to the network as it is now
                    disconnectQuietly(network, c.getId());
                }
                throw e;
            }
        }
        if (!configured.contains(c.getId())) {
            awaitReady(name);
            writeOperatorFiles(name);
            run(name, List.of("agentbox-egress", "configure"));
            restore(name, network);
            configured.add(c.getId());
        }
        String address =
                inspect(name)
                        .map(i -> addressOn(i, network))
                        .orElseThrow(() -> unavailable("the egress gateway " + name + " vanished"));
        return new Gateway(
                name, network, address, fixed.filter(address::equals).isPresent(), c.getId());
    }

    /**
     * A gateway being reclaimed, renamed back to {@code agentbox-egress-<hash>} (rename is atomic:
     * of the ensures and reapers renaming one tomb, one wins). Empty when there is no tomb, or it
     * was removed meanwhile; the gateway that has the name when another won the name.
     */
    private Optional<InspectContainerResponse> rescue(String hash) {
        String name = GATEWAY_PREFIX + hash;
        List<Container> tombs =
                DockerEngine.call(
                        "gateway list",
                        () ->
                                engine().client()
                                        .listContainersCmd()
                                        .withShowAll(true)
                                        .withLabelFilter(Map.of(GATEWAY_LABEL, hash))
                                        .exec());
        for (Container t : tombs) {
            String tomb = IdleGateways.nameOf(t);
            if (!tomb.startsWith(name + TOMB_INFIX)) {
                continue;
            }
            try {
                // by its tomb name, never its id: a tomb the reaper has begun to remove has
                // another name by then (IdleGateways, R3)
                DockerEngine.run(
                        "gateway rescue",
                        () -> engine().client().renameContainerCmd(tomb).withName(name).exec());
                LOG.info("egress gateway " + name + " rescued from " + tomb + " for an ensure");
                return inspect(name);
            } catch (NotFoundException e) {
                // removed by the reaper meanwhile: the next tomb, or a new gateway
            } catch (ConflictException e) {
                return inspect(name); // rescued or made by another meanwhile
            }
        }
        return Optional.empty();
    }

    /** Whether {@code gw}'s container still has its name and runs: E3 ({@link IdleGateways}). */
    boolean serves(Gateway gw) {
        return inspect(gw.container())
                .filter(c -> c.getId().equals(gw.id()))
                .map(c -> Boolean.TRUE.equals(c.getState().getRunning()))
                .orElse(false);
    }

    /**
     * E2 and E3 of the idle-reclaim protocol ({@link IdleGateways}): writes the rules of sandbox
     * {@code container} (named {@code sandbox}, already on {@code gw}'s network) into its gateway,
     * then checks that gateway still has its name. One reclaimed meanwhile (renamed, removed or
     * made again) is ensured again and given the rules again. Returns the gateway that holds them.
     */
    Gateway attach(
            Gateway gw,
            String sandbox,
            String container,
            EgressPolicy policy,
            Optional<String> installation) {
        Gateway current = gw;
        for (int attempt = 1; ; attempt++) {
            try {
                String address =
                        addressOn(
                                DockerEngine.call(
                                        "container inspect",
                                        () ->
                                                engine().client()
                                                        .inspectContainerCmd(container)
                                                        .exec()),
                                current.network());
                apply(current, sandbox, address, policy);
            } catch (RuntimeException e) {
                if (serves(current) || attempt >= ENSURE_ATTEMPTS) {
                    throw e;
                }
            }
            if (serves(current)) {
                return current;
            }
            if (attempt >= ENSURE_ATTEMPTS) {
                throw unavailable("the egress gateway " + current.container() + " kept going away");
            }
            LOG.info(
                    "egress gateway "
                            + current.container()
                            + " was reclaimed while "
                            + sandbox
                            + " joined it; ensuring it again");
            current = ensureFor(current.network(), installation);
        }
    }

    /**
     * A gateway new to this server may be new altogether: the running egress sandboxes of its
     * network get the rules it lacks again from their labels ({@link GatewayRestore}). A failure
     * fails this ensure, and the next one tries again.
     */
    private void restore(String gateway, String network) {
        List<Container> running =
                DockerEngine.call(
                        "container list",
                        () ->
                                engine().client()
                                        .listContainersCmd()
                                        .withLabelFilter(GatewayRestore.managed())
                                        .withNetworkFilter(List.of(network))
                                        .exec());
        List<String> stems = new ArrayList<>();
        String id = GatewayRestore.newId();
        Map<String, byte[]> files =
                GatewayRestore.files(
                        GatewayRestore.members(running, network),
                        settings.alwaysAllow(),
                        stems,
                        id);
        if (stems.isEmpty()) {
            return;
        }
        copy(gateway, files);
        run(gateway, GatewayRestore.command(stems, id));
        LOG.info(
                "egress gateway "
                        + gateway
                        + ": rules restored where missing for "
                        + stems.size()
                        + " running sandbox(es)");
    }

    /** Writes {@code sandbox}'s rules into its gateway and makes them live before returning. */
    void apply(Gateway gw, String sandbox, String address, EgressPolicy policy) {
        GatewayRules.Files files = GatewayRules.render(sandbox, policy, settings.alwaysAllow());
        String stem = GatewayRules.stem(address);
        Map<String, byte[]> out = new LinkedHashMap<>();
        out.put(CONF + "/sandboxes/" + stem + ".rules.next", utf8(files.rules()));
        out.put(CONF + "/sandboxes/" + stem + ".dns", utf8(files.dns()));
        copy(gw.container(), out);
        run(gw.container(), List.of("agentbox-egress", "reload", stem));
    }

    /**
     * Removes the files of {@code sandbox} at {@code address} (rules, DNS names, refusals, brokered
     * secrets) from its tenant's gateway, unless they already belong to a newer sandbox at the same
     * address ({@link GatewayRelease}). Best effort: a gateway that is gone has nothing to remove.
     */
    void release(String network, String sandbox, String address) {
        held.remove(sandbox);
        if (!network.startsWith(NETWORK_PREFIX)) {
            return;
        }
        String gateway = GATEWAY_PREFIX + network.substring(NETWORK_PREFIX.length());
        try {
            List<String> cmd =
                    new ArrayList<>(List.of("sh", "-c", GatewayRelease.SCRIPT, "release"));
            cmd.addAll(GatewayRelease.args(sandbox, address));
            Exec r = exec(gateway, cmd);
            if (r.code() != 0) {
                LOG.log(
                        Level.WARNING,
                        "egress gateway {0}: releasing the rules of {1} failed ({2})",
                        new Object[] {gateway, sandbox, r.output().strip()});
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "egress gateway " + gateway + " not reachable on release", e);
        }
    }

    /**
     * The refusals of egress sandbox {@code container} ({@link EgressAudit}); empty when it is not
     * on an egress network. Each read is one exec in its gateway.
     */
    Optional<EgressAudit> audit(String container) {
        return target(container).map(GatewayAudit::new);
    }

    /**
     * Replaces the brokered secrets of egress sandbox {@code container} in its gateway's tmpfs. The
     * values travel in the environment of one exec (never on a command line, which {@code ps} and
     * the engine show) and are written only there.
     */
    void broker(String container, Map<String, BrokeredSecret> byPlaceholder) {
        Optional<Target> t = target(container);
        if (t.isEmpty()) {
            if (byPlaceholder.isEmpty()) {
                return;
            }
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    "Brokered secrets need policy.network egress.",
                    Map.of("field", "workspace.secrets"),
                    null);
        }
        transfer(t.get(), GatewayRules.secretsTransfer(byPlaceholder));
        if (byPlaceholder.isEmpty()) {
            held.remove(container);
        } else {
            held.put(container, Map.copyOf(byPlaceholder));
        }
    }

    /**
     * Gives egress sandbox {@code container}'s gateway its brokered secrets again: the values this
     * server gave it ({@link #held}), and every other placeholder of {@code names} by name only.
     * Returns the variables given a value.
     */
    Set<String> restoreBrokered(String container, Map<String, String> names) {
        Optional<Target> t = target(container);
        Map<String, BrokeredSecret> values = held.getOrDefault(container, Map.of());
        if (t.isEmpty() || (values.isEmpty() && names.isEmpty())) {
            return Set.of();
        }
        transfer(t.get(), GatewayRules.secretsTransfer(values, names));
        Set<String> given = new java.util.TreeSet<>();
        values.forEach(
                (p, s) -> given.add(s.name().isEmpty() ? names.getOrDefault(p, "?") : s.name()));
        LOG.info(
                "egress gateway "
                        + t.get().gateway()
                        + ": brokered secrets of "
                        + container
                        + " given again ("
                        + given.size()
                        + " with a value, "
                        + names.keySet().stream().filter(p -> !values.containsKey(p)).count()
                        + " by name only)");
        return given;
    }

    /** Replaces a sandbox's brokered secrets in its gateway's tmpfs with {@code lines}. */
    private void transfer(Target t, String lines) {
        Exec r =
                exec(
                        t.gateway(),
                        List.of("agentbox-egress", "secrets", t.stem()),
                        List.of("AGENTBOX_SECRETS_TRANSFER=" + lines));
        if (r.code() != 0) {
            // the script's words cannot hold a value: it echoes only names and paths
            throw unavailable(
                    "the egress gateway "
                            + t.gateway()
                            + " could not take the brokered secrets ("
                            + r.output().strip()
                            + ")");
        }
    }

    /** The CA certificate every egress sandbox trusts (the gateway's, made once per engine). */
    String caCertificate(Gateway gw) {
        String ca = caPem;
        if (ca == null) {
            Exec r = exec(gw.container(), List.of("agentbox-egress", "ca"));
            if (r.code() != 0 || !r.output().contains("BEGIN CERTIFICATE")) {
                throw unavailable("the egress gateway " + gw.container() + " has no CA");
            }
            ca = r.output().strip() + "\n";
            caPem = ca;
        }
        return ca;
    }

    /**
     * Where an egress sandbox's files are: its gateway and its file stem (address); and the
     * sandbox's installation, which a gateway made again for it is labelled with.
     */
    private record Target(String gateway, String stem, Optional<String> installation) {}

    private Optional<Target> target(String container) {
        InspectContainerResponse c;
        try {
            c =
                    DockerEngine.call(
                            "container inspect",
                            () -> engine().client().inspectContainerCmd(container).exec());
        } catch (NotFoundException e) {
            return Optional.empty();
        }
        Map<String, ContainerNetwork> nets =
                c.getNetworkSettings() == null ? null : c.getNetworkSettings().getNetworks();
        if (nets == null) {
            return Optional.empty();
        }
        for (Map.Entry<String, ContainerNetwork> n : nets.entrySet()) {
            String ip = n.getValue().getIpAddress();
            if (n.getKey().startsWith(NETWORK_PREFIX) && ip != null && !ip.isEmpty()) {
                String gateway = GATEWAY_PREFIX + n.getKey().substring(NETWORK_PREFIX.length());
                Map<String, String> labels =
                        c.getConfig() == null || c.getConfig().getLabels() == null
                                ? Map.of()
                                : c.getConfig().getLabels();
                return Optional.of(
                        new Target(
                                gateway,
                                GatewayRules.stem(ip),
                                Optional.ofNullable(
                                        labels.get(
                                                dev.agentbox.sandbox.spi.SandboxLabels
                                                        .INSTALLATION))));
            }
        }
        return Optional.empty();
    }

    /** Reads a sandbox's refusals file in its gateway ({@code agentbox-egress denied}). */
    private final class GatewayAudit implements EgressAudit {

        private final String gateway;
        private final String stem;
        private final Optional<String> installation;

        GatewayAudit(Target t) {
            this.gateway = t.gateway();
            this.stem = t.stem();
            this.installation = t.installation();
        }

        @Override
        public long end() {
            return since(Long.MAX_VALUE / 2).next();
        }

        /**
         * The refusals from {@code position}. A gateway that is gone (removed by an operator or a
         * crash while its sandboxes run) is made again first, with the rules of its running
         * sandboxes ({@link #restore}): the reader of a run is what notices, within one poll, and
         * the run's driver then gives the brokered secrets back ({@code secretsHeld} false).
         */
        @Override
        public Refusals since(long position) {
            List<String> cmd =
                    List.of(
                            "agentbox-egress",
                            "denied",
                            stem,
                            Long.toString(Math.max(0, position)));
            Exec r;
            try {
                r = exec(gateway, cmd);
            } catch (ProblemException e) {
                // removed (404), or stopped (409: no exec in a container that is not running)
                if (e.code() != ProblemCode.NOT_FOUND
                        && e.code() != ProblemCode.SANDBOX_NOT_RUNNING) {
                    throw e;
                }
                r = null;
            }
            // An exec that failed while the gateway was being removed (its processes killed
            // under it) is a gateway gone too: asked once more, it is not running.
            if (r == null || (r.code() != 0 && !running(gateway))) {
                LOG.warning("egress gateway " + gateway + " is gone or stopped; making it again");
                ensureFor(
                        NETWORK_PREFIX + gateway.substring(GATEWAY_PREFIX.length()), installation);
                r = exec(gateway, cmd);
            }
            if (r.code() != 0) {
                throw unavailable("the egress gateway " + gateway + " did not answer");
            }
            return DeniedFile.parse(r.output(), position);
        }
    }

    /** Whether container {@code name} exists and runs (not stopped, not being removed). */
    private boolean running(String name) {
        return inspect(name)
                .map(
                        i ->
                                Boolean.TRUE.equals(i.getState().getRunning())
                                        && !"removing".equals(i.getState().getStatus()))
                .orElse(false);
    }

    /** The sandbox's address on the tenant's internal network. */
    static String addressOn(InspectContainerResponse c, String network) {
        Map<String, ContainerNetwork> nets =
                c.getNetworkSettings() == null ? null : c.getNetworkSettings().getNetworks();
        ContainerNetwork n = nets == null ? null : nets.get(network);
        String ip = n == null ? null : n.getIpAddress();
        if (ip == null || ip.isEmpty()) {
            throw unavailable(c.getName() + " has no address on " + network);
        }
        return ip;
    }

    private DockerEngine engine() {
        return provider.engine();
    }

    private String internalNetwork(String hash) {
        String name = NETWORK_PREFIX + hash;
        return ensureNetwork(
                name,
                true,
                "abr-" + hash,
                Map.of(DockerSandboxProvider.NETWORK, "egress-internal"));
    }

    private void upstreamNetwork() {
        ensureNetwork(
                UPSTREAM_NETWORK,
                false,
                UPSTREAM_BRIDGE,
                Map.of(DockerSandboxProvider.NETWORK, "egress-upstream"));
    }

    /**
     * Returns the network's name once it exists: made here, or by another server meanwhile. An
     * internal network is made with its gateway's address reserved ({@link GatewayAddress}) in a
     * subnet the engine picks from its pools.
     */
    private String ensureNetwork(
            String name, boolean internal, String bridge, Map<String, String> labels) {
        for (int attempt = 0; findNetwork(name).isEmpty(); attempt++) {
            // after 3 subnets taken between probe and creation, one without a reservation
            Optional<GatewayAddress> plan =
                    internal && attempt < 3 ? SubnetProbe.free(engine()) : Optional.empty();
            Map<String, String> all = new LinkedHashMap<>(labels);
            plan.ifPresent(p -> all.put(GatewayAddress.LABEL, p.gateway()));
            try {
                CreateNetworkCmd cmd =
                        engine().client()
                                .createNetworkCmd()
                                .withName(name)
                                .withDriver("bridge")
                                .withCheckDuplicate(true)
                                .withInternal(internal)
                                .withAttachable(false)
                                .withLabels(all)
                                .withOptions(Map.of("com.docker.network.bridge.name", bridge));
                plan.ifPresent(p -> cmd.withIpam(p.ipam()));
                DockerEngine.call("network create", cmd::exec);
                LOG.info(
                        "created egress network "
                                + name
                                + " (bridge "
                                + bridge
                                + plan.map(p -> ", gateway at " + p.gateway()).orElse("")
                                + ")");
            } catch (DockerException e) {
                if (plan.isPresent() && String.valueOf(e.getMessage()).contains("overlap")) {
                    continue; // another network took the probed subnet meanwhile
                }
                for (int i = 0; i < 20 && findNetwork(name).isEmpty(); i++) {
                    pause(100);
                }
                if (findNetwork(name).isEmpty()) {
                    throw e;
                }
            }
        }
        return name;
    }

    boolean networkExists(String name) {
        return findNetwork(name).isPresent();
    }

    private Optional<Network> findNetwork(String name) {
        try {
            Network n =
                    DockerEngine.call(
                            "network inspect",
                            () -> engine().client().inspectNetworkCmd().withNetworkId(name).exec());
            return name.equals(n.getName()) ? Optional.of(n) : Optional.empty();
        } catch (NotFoundException e) {
            return Optional.empty();
        }
    }

    private Optional<InspectContainerResponse> inspect(String name) {
        try {
            return Optional.of(
                    DockerEngine.call(
                            "gateway inspect",
                            () -> engine().client().inspectContainerCmd(name).exec()));
        } catch (NotFoundException e) {
            return Optional.empty();
        }
    }

    private InspectContainerResponse create(
            String name, String hash, Optional<String> installation) {
        HostConfig host =
                HostConfig.newHostConfig()
                        .withInit(true)
                        .withPrivileged(false)
                        .withSecurityOpts(List.of("no-new-privileges:true"))
                        .withCapDrop(Capability.ALL)
                        // Squid and dnsmasq start as root and drop to the proxy user; nothing else
                        .withCapAdd(
                                Capability.SETUID,
                                Capability.SETGID,
                                Capability.NET_BIND_SERVICE,
                                Capability.CHOWN,
                                Capability.DAC_OVERRIDE,
                                Capability.FOWNER,
                                Capability.KILL)
                        .withMemory(256L * 1024 * 1024)
                        .withMemorySwap(256L * 1024 * 1024)
                        .withPidsLimit(256L)
                        .withRestartPolicy(RestartPolicy.unlessStoppedRestart())
                        // brokered secrets: memory only, never the container's layer
                        .withTmpFs(
                                Map.of(
                                        "/run/agentbox-egress/secrets",
                                        "rw,noexec,nosuid,nodev,size=1m,mode=0700"))
                        .withNetworkMode(UPSTREAM_NETWORK)
                        .withBinds(new Bind(CA_VOLUME, new Volume("/var/lib/agentbox-egress")));
        try {
            DockerEngine.call(
                    "gateway create",
                    () ->
                            engine().client()
                                    .createContainerCmd(settings.image())
                                    .withName(name)
                                    .withHostName(name)
                                    .withLabels(labels(hash, installation))
                                    .withHostConfig(host)
                                    .exec());
            LOG.info("created egress gateway " + name + " from " + settings.image());
        } catch (ConflictException e) {
            // another server made it first
        } catch (NotFoundException e) {
            throw unavailable(
                    "the egress gateway image "
                            + settings.image()
                            + " is not present on the Docker engine (docker/build-images builds it)");
        }
        // the engine refuses the name (conflict) before the winner's container can be inspected
        Optional<InspectContainerResponse> c = inspect(name);
        for (int i = 0; i < 20 && c.isEmpty(); i++) {
            pause(100);
            c = inspect(name);
        }
        return c.orElseThrow(() -> unavailable("the egress gateway " + name + " vanished"));
    }

    private static Map<String, String> labels(String hash, Optional<String> installation) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(GATEWAY_LABEL, hash);
        installation.ifPresent(i -> labels.put(SandboxLabels.INSTALLATION, i));
        return labels;
    }

    private void disconnectQuietly(String network, String containerId) {
        try {
            DockerEngine.run(
                    "gateway disconnect",
                    () ->
                            engine().client()
                                    .disconnectFromNetworkCmd()
                                    .withNetworkId(network)
                                    .withContainerId(containerId)
                                    .withForce(true)
                                    .exec());
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "egress gateway disconnect from " + network + " failed", e);
        }
    }

    /**
     * Connects the gateway to {@code network}, at its reserved address where it has one. A tomb
     * ({@link IdleGateways}) may still hold that address for a moment: the connect waits for it.
     */
    private void connect(String network, String containerId, Optional<String> fixed) {
        ConnectToNetworkCmd cmd =
                engine().client()
                        .connectToNetworkCmd()
                        .withNetworkId(network)
                        .withContainerId(containerId);
        fixed.ifPresent(
                ip ->
                        cmd.withContainerNetwork(
                                new ContainerNetwork()
                                        .withIpamConfig(
                                                new ContainerNetwork.Ipam().withIpv4Address(ip))));
        long until = System.nanoTime() + ADDRESS_WAIT.toNanos();
        while (true) {
            try {
                DockerEngine.run("gateway connect", cmd::exec);
                return;
            } catch (DockerException e) {
                // "already exists in network": connected before, or by another server meanwhile
                String m = String.valueOf(e.getMessage());
                if (m.contains("already exists")) {
                    return;
                }
                if (!m.contains("Address already in use") || System.nanoTime() > until) {
                    throw e;
                }
                pause(100);
            }
        }
    }

    private void awaitReady(String name) {
        long until = System.nanoTime() + READY.toNanos();
        while (true) {
            Exec r =
                    exec(
                            name,
                            List.of(
                                    "sh",
                                    "-c",
                                    "test -s /run/dnsmasq.pid && test -s /run/squid.pid"));
            if (r.code() == 0) {
                return;
            }
            if (System.nanoTime() > until) {
                throw unavailable("the egress gateway " + name + " did not become ready");
            }
            pause(100);
        }
    }

    private void writeOperatorFiles(String gateway) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        out.put(CONF + "/hosts.next", utf8(settings.hostsFile()));
        out.put(CONF + "/resolved.conf.next", utf8(settings.resolvedAcl()));
        String tls = "tls_outgoing_options default-ca=on";
        if (settings.upstreamCa().isPresent()) {
            try {
                out.put(
                        CONF + "/upstream-ca.pem.next",
                        Files.readAllBytes(settings.upstreamCa().get()));
            } catch (IOException e) {
                throw new UncheckedIOException("agentbox.egress.upstream-ca: cannot read", e);
            }
            tls += " cafile=" + CONF + "/upstream-ca.pem";
        }
        out.put(CONF + "/tls.conf.next", utf8(tls + "\n"));
        copy(gateway, out);
    }

    private void run(String gateway, List<String> command) {
        Exec r = exec(gateway, command);
        if (r.code() != 0) {
            Incident incident =
                    Incident.log(
                            LOG,
                            Level.WARNING,
                            "egress gateway "
                                    + gateway
                                    + ": "
                                    + String.join(" ", command)
                                    + " failed: "
                                    + r.output(),
                            null);
            throw new ProblemException(
                    ProblemCode.PROVIDER_UNAVAILABLE,
                    incident.text("The egress gateway could not apply this sandbox's rules"),
                    Map.of("incident", incident.id()),
                    null);
        }
    }

    private record Exec(int code, String output) {}

    private Exec exec(String container, List<String> cmd) {
        return exec(container, cmd, List.of());
    }

    private Exec exec(String container, List<String> cmd, List<String> env) {
        DockerEngine.ExecCall call = engine().start(container, cmd, env, "/", 64 * 1024);
        try {
            if (call.await(EXEC_DEADLINE) != CapturedExec.End.COMPLETED) {
                return new Exec(-1, "timed out");
            }
            String out =
                    new String(call.capture().stdout(), StandardCharsets.UTF_8)
                            + new String(call.capture().stderr(), StandardCharsets.UTF_8);
            return new Exec(call.exitCode(), out);
        } finally {
            call.close();
        }
    }

    private void copy(String container, Map<String, byte[]> files) {
        byte[] tar = TarFiles.of(files);
        DockerEngine.run(
                "copy to gateway",
                () ->
                        engine().client()
                                .copyArchiveToContainerCmd(container)
                                .withRemotePath("/")
                                .withTarInputStream(new ByteArrayInputStream(tar))
                                .exec());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ProblemException unavailable(String detail) {
        return ProblemException.providerUnavailable(
                "Egress for this sandbox is unavailable: " + detail + ".", null);
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("interrupted");
        }
    }
}
