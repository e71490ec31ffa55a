package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.spi.SandboxPolicy.Network;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A sandbox's NetworkPolicy for each network its policy can name. */
class SandboxNetworkPolicyTest {

    private static final KubernetesSettings SETTINGS = KubernetesSettings.defaults();

    private static NetworkPolicy build(Network network) {
        return SandboxNetworkPolicy.build(
                "agentbox-s1", Map.of("dev.agentbox.managed", "true"), network, SETTINGS);
    }

    private static void selectsOnlyItsPodInBothDirections(NetworkPolicy np) {
        assertThat(np.getSpec().getPodSelector().getMatchLabels())
                .containsExactly(Map.entry(SandboxObjects.SANDBOX, "agentbox-s1"));
        assertThat(np.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
    }

    private static void admitsOnlyReplicas(NetworkPolicyPeer from) {
        assertThat(from.getNamespaceSelector().getMatchLabels())
                .containsExactly(Map.entry("kubernetes.io/metadata.name", "agentbox"));
        assertThat(from.getPodSelector().getMatchLabels())
                .containsExactly(Map.entry("app.kubernetes.io/name", "agentbox"));
        assertThat(from.getIpBlock()).isNull();
    }

    @Test
    void aNoneSandboxDeniesAllEgressAndAdmitsOnlyReplicasOnTheHelperPort() {
        NetworkPolicy np = build(Network.NONE);

        selectsOnlyItsPodInBothDirections(np);
        assertThat(np.getSpec().getEgress()).isEmpty();
        assertThat(np.getSpec().getIngress())
                .singleElement()
                .satisfies(
                        rule -> {
                            assertThat(rule.getFrom())
                                    .singleElement()
                                    .satisfies(SandboxNetworkPolicyTest::admitsOnlyReplicas);
                            assertThat(rule.getPorts())
                                    .singleElement()
                                    .satisfies(
                                            p -> {
                                                assertThat(p.getPort().getIntVal()).isEqualTo(7070);
                                                assertThat(p.getProtocol()).isEqualTo("TCP");
                                            });
                        });
    }

    @Test
    void aBridgeSandboxReachesOutsideButNoPrivateOrMetadataRange() {
        NetworkPolicy np = build(Network.BRIDGE);

        selectsOnlyItsPodInBothDirections(np);
        assertThat(np.getSpec().getIngress())
                .singleElement()
                .satisfies(
                        rule -> {
                            assertThat(rule.getFrom())
                                    .singleElement()
                                    .satisfies(SandboxNetworkPolicyTest::admitsOnlyReplicas);
                            assertThat(rule.getPorts()).as("any port: the port proxy").isEmpty();
                        });
        assertThat(np.getSpec().getEgress()).hasSize(2);
        var dns = np.getSpec().getEgress().get(0);
        assertThat(dns.getTo().get(0).getPodSelector().getMatchLabels())
                .containsExactly(Map.entry("k8s-app", "kube-dns"));
        assertThat(dns.getPorts()).extracting(p -> p.getPort().getIntVal()).containsOnly(53);
        var out = np.getSpec().getEgress().get(1).getTo().get(0).getIpBlock();
        assertThat(out.getCidr()).isEqualTo("0.0.0.0/0");
        assertThat(out.getExcept())
                .contains("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16");
    }

    @Test
    void anEgressSandboxReachesOnlyTheGatewayByItsLabel() {
        NetworkPolicy np = build(Network.EGRESS);

        selectsOnlyItsPodInBothDirections(np);
        assertThat(np.getSpec().getEgress())
                .singleElement()
                .satisfies(
                        rule -> {
                            assertThat(rule.getTo())
                                    .singleElement()
                                    .satisfies(
                                            to -> {
                                                assertThat(to.getPodSelector().getMatchLabels())
                                                        .containsExactly(
                                                                Map.entry(
                                                                        "app.kubernetes.io/name",
                                                                        "agentbox-egress"));
                                                assertThat(
                                                                to.getNamespaceSelector()
                                                                        .getMatchLabels())
                                                        .containsExactly(
                                                                Map.entry(
                                                                        "kubernetes.io/metadata.name",
                                                                        "agentbox-sandboxes"));
                                                assertThat(to.getIpBlock()).isNull();
                                            });
                            assertThat(rule.getPorts())
                                    .extracting(
                                            p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                                    .containsExactlyInAnyOrder(
                                            "TCP/3128", "UDP/3128", "TCP/53", "UDP/53");
                        });
    }
}
