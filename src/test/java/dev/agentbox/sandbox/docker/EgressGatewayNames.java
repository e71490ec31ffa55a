package dev.agentbox.sandbox.docker;

import java.util.Optional;

/**
 * The engine names of a tenant's egress gateway and internal network ({@link EgressGateways}), for
 * tests outside this package that look at them or clean them up.
 */
public final class EgressGatewayNames {

    private EgressGatewayNames() {}

    /** {@code agentbox-egress-<hash>}: the gateway of {@code tenant} of a provider used alone. */
    public static String gateway(String tenant) {
        return EgressGateways.gatewayName(NetworkScope.of(Optional.empty(), tenant));
    }

    /** {@code agentbox-te-<hash>}: the internal network of {@code tenant} of a provider alone. */
    public static String network(String tenant) {
        return EgressGateways.networkName(NetworkScope.of(Optional.empty(), tenant));
    }

    /** {@code agentbox-egress-<hash>}: the gateway of {@code tenant} of {@code installation}. */
    public static String gateway(String installation, String tenant) {
        return EgressGateways.gatewayName(NetworkScope.of(Optional.of(installation), tenant));
    }

    /**
     * {@code agentbox-te-<hash>}: the internal network of {@code tenant} of {@code installation}.
     */
    public static String network(String installation, String tenant) {
        return EgressGateways.networkName(NetworkScope.of(Optional.of(installation), tenant));
    }
}
