package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.model.Network;
import org.junit.jupiter.api.Test;

class GatewayAddressTest {

    @Test
    void theGatewaySitsInTheLowerHalfAndTheEngineHandsOutOnlyTheUpperHalf() {
        GatewayAddress a = GatewayAddress.within("172.18.0.0/16", "172.18.0.1").orElseThrow();
        assertThat(a.gateway()).isEqualTo("172.18.0.2");
        assertThat(a.ipRange()).isEqualTo("172.18.128.0/17");
        assertThat(a.subnet()).isEqualTo("172.18.0.0/16");
        Network.Ipam.Config c = a.ipam().getConfig().get(0);
        assertThat(c.getSubnet()).isEqualTo("172.18.0.0/16");
        assertThat(c.getGateway()).isEqualTo("172.18.0.1");
        assertThat(c.getIpRange()).isEqualTo("172.18.128.0/17");
    }

    @Test
    void aSmallPoolSubnetIsHalvedToo() {
        GatewayAddress a = GatewayAddress.within("192.168.16.0/20", "192.168.16.1").orElseThrow();
        assertThat(a.gateway()).isEqualTo("192.168.16.2");
        assertThat(a.ipRange()).isEqualTo("192.168.24.0/21");
    }

    @Test
    void noReservationForIpv6ATinySubnetOrABridgeAtTheGatewaysPlace() {
        assertThat(GatewayAddress.within("fd00::/64", "fd00::1")).isEmpty();
        assertThat(GatewayAddress.within("10.1.2.0/30", "10.1.2.1")).isEmpty();
        assertThat(GatewayAddress.within("10.1.2.0/24", "10.1.2.2")).isEmpty();
        assertThat(GatewayAddress.within(null, "10.1.2.1")).isEmpty();
        assertThat(GatewayAddress.within("10.1.2.0/24", null)).isEmpty();
    }

    @Test
    void aNetworkWithoutTheLabelHasNoReservedAddress() {
        assertThat(GatewayAddress.reservedOn(new Network())).isEmpty();
        assertThat(GatewayAddress.reservedOn(null)).isEmpty();
    }

    @Test
    void theProxyIsNamedByAddressOnlyWhereTheAddressIsFixed() {
        String name = "agentbox-egress-0123456789a";
        assertThat(new EgressGateways.Gateway(name, "n", "172.18.0.2", true).proxyUrl())
                .isEqualTo("http://172.18.0.2:3128");
        assertThat(new EgressGateways.Gateway(name, "n", "172.18.0.7", false).proxyUrl())
                .isEqualTo("http://" + name + ":3128");
        assertThat(
                        EgressGateways.proxyEnv(
                                new EgressGateways.Gateway(name, "n", "172.18.0.2", true)))
                .containsEntry("HTTPS_PROXY", "http://172.18.0.2:3128")
                .containsEntry("http_proxy", "http://172.18.0.2:3128");
    }
}
