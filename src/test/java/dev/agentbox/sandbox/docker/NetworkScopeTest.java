package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class NetworkScopeTest {

    private static final String ONE = "6f1c2a9e-0d0b-4d6e-9a55-0c8d3f2b7e11";
    private static final String OTHER = "b3f0e0a4-5d57-4c8a-8a0e-1f9d5e6c2a77";

    @Test
    void oneTenantNameInTwoInstallationsGetsTwoNetworksAndTwoGateways() {
        String a = NetworkScope.of(Optional.of(ONE), "alpha");
        String b = NetworkScope.of(Optional.of(OTHER), "alpha");
        assertThat(TenantNetworks.networkName(a)).isNotEqualTo(TenantNetworks.networkName(b));
        assertThat(TenantNetworks.bridgeName(a)).isNotEqualTo(TenantNetworks.bridgeName(b));
        assertThat(EgressGateways.networkName(a)).isNotEqualTo(EgressGateways.networkName(b));
        assertThat(EgressGateways.gatewayName(a)).isNotEqualTo(EgressGateways.gatewayName(b));
    }

    @Test
    void theServersOfOneInstallationNameATenantsResourcesAlike() {
        assertThat(EgressGateways.gatewayName(NetworkScope.of(Optional.of(ONE), "alpha")))
                .isEqualTo(EgressGateways.gatewayName(NetworkScope.of(Optional.of(ONE), "alpha")))
                .isNotEqualTo(
                        EgressGateways.gatewayName(NetworkScope.of(Optional.of(ONE), "beta")));
    }

    @Test
    void withoutAnInstallationTheNamesAreTheTenantOnlyOnesOfBefore() {
        // Sandboxes made by earlier versions are on these networks: the names must not move.
        assertThat(NetworkScope.of(Optional.empty(), "tenant-a")).isEqualTo("tenant-a");
        assertThat(TenantNetworks.networkName("tenant-a"))
                .isEqualTo(
                        "agentbox-tn-"
                                + DockerSandboxProvider.sha256Hex(
                                                "agentbox/tenant-network/v1:tenant-a")
                                        .substring(0, 11));
        assertThat(EgressGateways.gatewayName("tenant-a"))
                .isEqualTo(
                        "agentbox-egress-"
                                + DockerSandboxProvider.sha256Hex(
                                                "agentbox/tenant-egress/v1:tenant-a")
                                        .substring(0, 11));
    }

    @Test
    void everyNameFitsTheEnginesAndLinuxsLimits() {
        String scope =
                NetworkScope.of(Optional.of(ONE), "a-rather-long-tenant-name-" + "x".repeat(60));
        assertThat(TenantNetworks.bridgeName(scope)).hasSizeLessThanOrEqualTo(15);
        assertThat("abr-" + EgressGateways.hash(scope)).hasSizeLessThanOrEqualTo(15);
    }
}
