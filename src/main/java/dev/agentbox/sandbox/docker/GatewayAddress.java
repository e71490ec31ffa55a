package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.model.Network;
import java.util.Map;
import java.util.Optional;

/**
 * The fixed address of a tenant's egress gateway on its internal network, so sandboxes can name
 * their proxy (and DNS server) by address instead of looking up the gateway's name on every request
 * (bench/README.md, "Egress gateway").
 *
 * <p>Invariant: on a network made with a reservation (label {@link #LABEL}), the engine hands out
 * addresses dynamically only from the upper half of the subnet (the network's {@code ip-range}),
 * and the gateway container is always connected at {@link #LABEL}'s address, the subnet's base plus
 * 2, in the lower half. So no sandbox can hold that address, and a gateway container made again
 * gets the same one: sandboxes made before keep reaching their proxy and their DNS server.
 *
 * <p>A network made by an older version has no label: its gateway keeps a dynamic address, and
 * sandboxes name the proxy by the gateway's container name (safe across a re-created gateway, at
 * the cost of one lookup per request).
 */
record GatewayAddress(String subnet, String bridge, String ipRange, String gateway) {

    /** The network label that holds the gateway's reserved address. */
    static final String LABEL = "dev.agentbox.egress-gateway-ip";

    /**
     * The reservation inside an IPv4 subnet the engine chose (e.g. {@code 172.18.0.0/16} with its
     * bridge at {@code 172.18.0.1}); empty when it is not IPv4 or too small to halve (a /29 still
     * leaves 3 sandbox addresses).
     */
    static Optional<GatewayAddress> within(String subnet, String bridge) {
        if (subnet == null || bridge == null) {
            return Optional.empty();
        }
        String[] parts = subnet.split("/");
        if (parts.length != 2 || !parts[1].matches("\\d{1,2}")) {
            return Optional.empty();
        }
        int prefix = Integer.parseInt(parts[1]);
        Optional<Long> base = ipv4(parts[0]);
        if (base.isEmpty() || prefix < 8 || prefix > 29 || ipv4(bridge).isEmpty()) {
            return Optional.empty();
        }
        long size = 1L << (32 - prefix);
        long network = base.get() & ~(size - 1) & 0xFFFFFFFFL;
        long gateway = network + 2;
        if (ipv4(bridge).get() == gateway) {
            return Optional.empty(); // an engine that put its bridge there: leave it dynamic
        }
        String upperHalf = dotted(network + size / 2) + "/" + (prefix + 1);
        return Optional.of(
                new GatewayAddress(
                        dotted(network) + "/" + prefix, bridge, upperHalf, dotted(gateway)));
    }

    /** The network's IPAM configuration carrying this reservation. */
    Network.Ipam ipam() {
        return new Network.Ipam()
                .withConfig(
                        new Network.Ipam.Config()
                                .withSubnet(subnet)
                                .withGateway(bridge)
                                .withIpRange(ipRange));
    }

    /** The gateway's reserved address of a network, if it was made with one. */
    static Optional<String> reservedOn(Network network) {
        Map<String, String> labels = network == null ? null : network.getLabels();
        String ip = labels == null ? null : labels.get(LABEL);
        return ip == null || ipv4(ip).isEmpty() ? Optional.empty() : Optional.of(ip);
    }

    private static Optional<Long> ipv4(String s) {
        String[] o = s.split("\\.");
        if (o.length != 4) {
            return Optional.empty();
        }
        long v = 0;
        for (String p : o) {
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > 255) {
                return Optional.empty();
            }
            v = (v << 8) | Integer.parseInt(p);
        }
        return Optional.of(v);
    }

    private static String dotted(long v) {
        return ((v >> 24) & 255)
                + "."
                + ((v >> 16) & 255)
                + "."
                + ((v >> 8) & 255)
                + "."
                + (v & 255);
    }
}
