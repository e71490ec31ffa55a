package dev.agentbox.sandbox.docker;

/**
 * The engine names of a tenant's egress gateway and internal network ({@link EgressGateways}), for
 * tests outside this package that look at them or clean them up.
 */
public final class EgressGatewayNames {

    private EgressGatewayNames() {}

    /** {@code agentbox-egress-<hash>}: the tenant's gateway container. */
    public static String gateway(String tenant) {
        return EgressGateways.gatewayName(tenant);
    }

    /** {@code agentbox-te-<hash>}: the tenant's internal network. */
    public static String network(String tenant) {
        return EgressGateways.networkName(tenant);
    }
}
