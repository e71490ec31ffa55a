package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import dev.agentbox.sandbox.spi.SandboxLabels;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reclaims the egress gateways ({@link EgressGateways}) of one installation that have had no egress
 * sandbox for a while, with their internal networks: a gateway costs ~19 MiB and a network one of
 * the engine's few address pools, and the next egress ensure of the tenant makes both again.
 *
 * <p>Which: a container labelled {@link EgressGateways#GATEWAY_LABEL} and this installation's
 * {@link SandboxLabels#INSTALLATION} (a gateway of another installation, or made before gateways
 * carried it, is left alone), whose network this server has seen with no other container on it —
 * running, stopped or only created — since at least the idle bound. "Since" is remembered per
 * server in memory: a server that restarts only starts counting again.
 *
 * <p>The protocol. Container names are the one register both sides change atomically: a rename to a
 * name in use fails, and so does a rename or removal of a container that is gone. {@code N} is
 * {@code agentbox-egress-<hash>}, {@code T} a tomb name {@code N-idle-<random>}, new for every
 * reclaim, so no two reclaims ever share one (a reaper that fails halfway leaves its tomb to the
 * next reclaim or ensure).
 *
 * <ul>
 *   <li>R1: rename {@code N} to a new tomb {@code T}; failing (gone, renamed meanwhile) → skip.
 *   <li>R2: list the network again (every state, created included): a container on it besides the
 *       tomb → rename {@code T} back to {@code N} and stop (when {@code N} was made again
 *       meanwhile, the newer gateway keeps the name and the tomb is removed: it would hold the
 *       reserved address the newer one waits for).
 *   <li>R3: rename {@code T} to {@code N-dead-<random>}, a name no ensure rescues; failing → an
 *       ensure rescued it, stop. Then remove that name. (Removing {@code T} itself would not do:
 *       the engine lets a container being removed be renamed, so a rescue could win a gateway that
 *       then vanishes.) A dead name left by a reaper that stopped is removed at the next pass.
 *   <li>R4: remove the network; the engine refuses while a container runs on it → it stays, and the
 *       next ensure makes a gateway on it.
 *   <li>E0 ({@link ContainerFactory}): on a network with the gateway's address reserved, the new
 *       sandbox is created on the network before the gateway is ensured, with that address as its
 *       proxy and DNS server: from then on every R2 lists it. If E1 then finds the network made
 *       again (another id or address), the container is removed and the create starts over.
 *   <li>E1 ({@link EgressGateways}): the container named {@code N}; else a tomb of this hash
 *       renamed back to {@code N} by its tomb name (whoever renames first wins, the others use the
 *       winner); else a new gateway. Its connect at the reserved address waits while a tomb still
 *       holds it; a network or gateway that goes away under E1 starts E1 again.
 *   <li>E2: the sandbox starts and its rules are written to {@code N}; a start that fails because
 *       R4 removed (or replaced) the network starts the create over.
 *   <li>E3: {@code N} is still the container E1 returned, running; if not, E1 again (which also
 *       restores the running sandboxes' rules from their labels) and E2's rules again, until it is.
 * </ul>
 *
 * <p>Why no sandbox is left without a way out once E3 passed for it at time {@code t3}, having been
 * created (listed on the network from then on, until destroyed) at {@code tc < t3}: a reaper
 * removes gateway {@code G} only by a dead name, which {@code G} got by R3 from a tomb name it had
 * without a break since that reclaim's R1 or since the listing of a reaper that took the tomb over
 * (tomb and dead names are never given twice). E3 saw {@code G} named {@code N} at {@code t3}, so
 * {@code t3} precedes that R1 (or listing), hence that reclaim's R2, which then lists the sandbox
 * and renames {@code G} back instead. The engine looks a name up before it locks the container, so
 * two renames racing for one name both apply, the later to the container under its new name; both
 * land before either caller's next request, so E3 always sees the final name. The one exception is
 * R2's rename back finding {@code N} taken: a gateway made while the tomb existed, which restored
 * the running sandboxes' rules when it was configured and serves them once it holds the address.
 * Brokered secret values come back only with each sandbox's next ensure, as for any gateway made
 * again. A network without a reserved address (made by an older version) has no E0: its gateway is
 * ensured first, and only E3 guards it.
 *
 * <p>Known gap: with the reapers of two servers passing at bound 0 without pause, a start was still
 * refused ("Address already in use") after the network was made again under a create
 * (IdleGatewaysTest's disabled race test); an ordinary bound (minutes) makes that window unlikely.
 *
 * <p>What is not reclaimed here: the Kubernetes gateway (a shared Deployment), the upstream network
 * and the CA volume (shared by every tenant).
 */
final class IdleGateways {

    private static final Logger LOG = Logger.getLogger(IdleGateways.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What R3 renames a tomb to before removing it: a name no ensure ever rescues. */
    static final String DEAD_INFIX = "-dead-";

    private final DockerSandboxProvider provider;
    private final Clock clock;

    /** When this server first saw each gateway or tomb (by name) idle, without a break since. */
    private final Map<String, Instant> idleSince = new ConcurrentHashMap<>();

    IdleGateways(DockerSandboxProvider provider, Clock clock) {
        this.provider = provider;
        this.clock = clock;
    }

    /**
     * One pass: reclaims the gateways of {@code installation} seen idle for at least {@code idle}
     * and returns their names. A gateway that cannot be reclaimed now is left for the next pass.
     */
    List<String> reclaim(String installation, Duration idle) {
        Instant now = clock.instant();
        List<Container> gateways =
                DockerEngine.call(
                        "gateway list",
                        () ->
                                engine().client()
                                        .listContainersCmd()
                                        .withShowAll(true)
                                        .withLabelFilter(
                                                List.of(
                                                        EgressGateways.GATEWAY_LABEL,
                                                        SandboxLabels.INSTALLATION
                                                                + "="
                                                                + installation))
                                        .exec());
        List<String> reclaimed = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Container c : gateways) {
            String hash = c.getLabels().get(EgressGateways.GATEWAY_LABEL);
            String name = nameOf(c);
            String gateway = EgressGateways.GATEWAY_PREFIX + hash;
            boolean tomb = name.startsWith(gateway + EgressGateways.TOMB_INFIX);
            if (name.startsWith(gateway + DEAD_INFIX)) {
                removeDead(name); // a reclaim that stopped between R3's rename and its removal
                continue;
            }
            if (!name.equals(gateway) && !tomb) {
                continue;
            }
            seen.add(name);
            try {
                if (!idle(hash, c.getId())) {
                    idleSince.remove(name);
                    continue;
                }
                Instant since = idleSince.computeIfAbsent(name, n -> now);
                if (since.plus(idle).isAfter(now)) {
                    continue;
                }
                idleSince.remove(name);
                if (reclaimOne(hash, tomb ? name : null)) {
                    reclaimed.add(gateway);
                    LOG.info(
                            "egress gateway "
                                    + gateway
                                    + " and its network reclaimed: no egress sandbox since "
                                    + since);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "egress gateway " + name + ": reclaim failed", e);
            }
        }
        idleSince.keySet().retainAll(seen);
        return reclaimed;
    }

    /** R1 to R4; {@code tomb} when the gateway is a tomb already (R1 skipped). */
    private boolean reclaimOne(String hash, String tomb) {
        String gateway = EgressGateways.GATEWAY_PREFIX + hash;
        String marked = tomb;
        if (marked == null) {
            marked = gateway + EgressGateways.TOMB_INFIX + suffix();
            if (!rename(gateway, marked)) {
                return false; // R1: gone, or renamed by another meanwhile
            }
        }
        String id;
        try {
            String m = marked;
            id =
                    DockerEngine.call(
                                    "gateway inspect",
                                    () -> engine().client().inspectContainerCmd(m).exec())
                            .getId();
        } catch (NotFoundException e) {
            return false; // rescued at once
        }
        if (!idle(hash, id)) {
            unmark(marked, gateway);
            return false; // R2
        }
        String dead = gateway + DEAD_INFIX + suffix();
        if (!rename(marked, dead)) {
            return false; // R3: rescued by an ensure
        }
        try {
            remove(dead);
        } catch (NotFoundException e) {
            return false; // R3: rescued by an ensure whose rename was already under way
        }
        try {
            String network = EgressGateways.NETWORK_PREFIX + hash;
            DockerEngine.run(
                    "network remove", () -> engine().client().removeNetworkCmd(network).exec());
        } catch (NotFoundException e) {
            // removed already
        } catch (DockerException e) {
            // R4: "has active endpoints": an ensure is making a gateway on it; it stays
            LOG.log(Level.FINE, "egress network of " + gateway + " stays", e);
        }
        return true;
    }

    /** Renames {@code from} to {@code to}; false when {@code from} is gone or {@code to} taken. */
    private boolean rename(String from, String to) {
        try {
            DockerEngine.run(
                    "gateway rename",
                    () -> engine().client().renameContainerCmd(from).withName(to).exec());
            return true;
        } catch (NotFoundException | ConflictException e) {
            return false;
        }
    }

    private static String suffix() {
        return HexFormat.of().toHexDigits(RANDOM.nextInt());
    }

    /** R2's way back: the tomb gets its name again, unless a newer gateway took it. */
    private void unmark(String tomb, String gateway) {
        try {
            DockerEngine.run(
                    "gateway unmark",
                    () -> engine().client().renameContainerCmd(tomb).withName(gateway).exec());
            LOG.info("egress gateway " + gateway + " is in use again: not reclaimed");
        } catch (NotFoundException e) {
            // rescued by an ensure meanwhile
        } catch (ConflictException e) {
            // made again meanwhile: the newer gateway serves the network (see the class comment)
            try {
                remove(tomb);
            } catch (NotFoundException gone) {
                // rescued or removed meanwhile
            }
        }
    }

    private void removeDead(String dead) {
        try {
            remove(dead);
            LOG.info("egress gateway " + dead + " removed (left by a reclaim that stopped)");
        } catch (NotFoundException e) {
            // removed by another reaper meanwhile
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "egress gateway " + dead + ": removal failed", e);
        }
    }

    private void remove(String container) {
        DockerEngine.run(
                "gateway remove",
                () ->
                        engine().client()
                                .removeContainerCmd(container)
                                .withForce(true)
                                .withRemoveVolumes(true)
                                .exec());
    }

    /**
     * Whether no container but {@code gateway} is on the hash's network (any state, even created).
     */
    private boolean idle(String hash, String gateway) {
        String network = EgressGateways.NETWORK_PREFIX + hash;
        List<Container> on =
                DockerEngine.call(
                        "container list",
                        () ->
                                engine().client()
                                        .listContainersCmd()
                                        .withShowAll(true)
                                        .withNetworkFilter(List.of(network))
                                        .exec());
        return on.stream().allMatch(c -> c.getId().equals(gateway));
    }

    static String nameOf(Container c) {
        return c.getNames() != null && c.getNames().length > 0
                ? c.getNames()[0].replaceFirst("^/", "")
                : c.getId();
    }

    private DockerEngine engine() {
        return provider.engine();
    }
}
