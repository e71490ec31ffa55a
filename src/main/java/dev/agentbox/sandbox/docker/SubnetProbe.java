package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.model.Network;
import dev.agentbox.problem.ProblemException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A free subnet from the engine's own address pools, for a network that must be made with an
 * explicit subnet (the engine allows a container a fixed address, and a network an {@code
 * ip-range}, only then). The engine is asked by making an empty internal network, reading the
 * subnet it chose and removing it: the operator's {@code default-address-pools} and every existing
 * network are respected. The subnet can be taken by another network before the caller makes its
 * own; the caller's creation then fails with an overlap and probes again.
 */
final class SubnetProbe {

    static final String PREFIX = "agentbox-subnet-probe-";
    private static final Logger LOG = Logger.getLogger(SubnetProbe.class.getName());

    private SubnetProbe() {}

    /** A gateway reservation in a free subnet; empty when the engine offers no IPv4 subnet. */
    static Optional<GatewayAddress> free(DockerEngine engine) {
        String name = PREFIX + UUID.randomUUID().toString().substring(0, 8);
        try {
            String id =
                    DockerEngine.call(
                                    "network create",
                                    () ->
                                            engine.client()
                                                    .createNetworkCmd()
                                                    .withName(name)
                                                    .withDriver("bridge")
                                                    .withInternal(true)
                                                    .withLabels(
                                                            Map.of(
                                                                    DockerSandboxProvider.NETWORK,
                                                                    "subnet-probe"))
                                                    .exec())
                            .getId();
            try {
                Network n =
                        DockerEngine.call(
                                "network inspect",
                                () -> engine.client().inspectNetworkCmd().withNetworkId(id).exec());
                List<Network.Ipam.Config> configs =
                        n.getIpam() == null ? null : n.getIpam().getConfig();
                return configs == null || configs.isEmpty()
                        ? Optional.empty()
                        : GatewayAddress.within(
                                configs.get(0).getSubnet(), configs.get(0).getGateway());
            } finally {
                removeQuietly(engine, id);
            }
        } catch (DockerException | ProblemException e) {
            LOG.log(Level.WARNING, "no subnet probe: the gateway's address stays dynamic", e);
            return Optional.empty();
        }
    }

    private static void removeQuietly(DockerEngine engine, String id) {
        try {
            engine.client().removeNetworkCmd(id).exec();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "subnet probe network " + id + " not removed", e);
        }
    }
}
