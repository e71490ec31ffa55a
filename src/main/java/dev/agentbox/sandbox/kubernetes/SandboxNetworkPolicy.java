package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.spi.SandboxPolicy;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A sandbox's network policy as one NetworkPolicy that selects only its pod ({@link
 * SandboxObjects#SANDBOX}) and lists both directions, so anything it does not allow is denied:
 *
 * <ul>
 *   <li>{@code none}: no egress at all; ingress only from agentbox's replicas, only to the helper
 *       port.
 *   <li>{@code bridge}: ingress from agentbox's replicas on any port (the port proxy); egress to
 *       cluster DNS and to any address outside {@link
 *       KubernetesSettings.Network#bridgeBlockedCidrs} (cluster, private and metadata ranges), so
 *       never to another sandbox or the nodes.
 *   <li>{@code egress}: ingress as for {@code bridge}; egress only to the egress gateway's pods
 *       (selected by label) on its ports — the gateway resolves names and is the only way out.
 *       Built for the gateway that will serve pods; until one does, the ensure refuses {@code
 *       egress} on this provider (it does not report {@code networkPolicy}).
 * </ul>
 *
 * What is enforced is the cluster's network plugin's business: a plugin without NetworkPolicy
 * support accepts these objects and enforces none of them (docs/kubernetes.md).
 */
final class SandboxNetworkPolicy {

    private static final String DNS_NAMESPACE = "kube-system";
    private static final Map<String, String> DNS_PODS = Map.of("k8s-app", "kube-dns");
    private static final String NAMESPACE_NAME = "kubernetes.io/metadata.name";

    private SandboxNetworkPolicy() {}

    static NetworkPolicy build(
            String podName,
            Map<String, String> labels,
            SandboxPolicy.Network network,
            KubernetesSettings settings) {
        KubernetesSettings.Network n = settings.network();
        List<NetworkPolicyIngressRule> ingress = new ArrayList<>();
        List<NetworkPolicyEgressRule> egress = new ArrayList<>();
        NetworkPolicyPeer replicas = podsIn(n.replicaNamespace(), n.replicaSelector());
        switch (network) {
            case NONE ->
                    ingress.add(
                            new NetworkPolicyIngressRuleBuilder()
                                    .withFrom(replicas)
                                    .withPorts(tcp(n.helperPort()))
                                    .build());
            case BRIDGE -> {
                ingress.add(new NetworkPolicyIngressRuleBuilder().withFrom(replicas).build());
                egress.add(dns());
                egress.add(
                        new NetworkPolicyEgressRuleBuilder()
                                .withTo(
                                        new NetworkPolicyPeerBuilder()
                                                .withNewIpBlock()
                                                .withCidr("0.0.0.0/0")
                                                .withExcept(n.bridgeBlockedCidrs())
                                                .endIpBlock()
                                                .build())
                                .build());
            }
            case EGRESS -> {
                ingress.add(new NetworkPolicyIngressRuleBuilder().withFrom(replicas).build());
                List<NetworkPolicyPort> ports = new ArrayList<>();
                for (int p : n.gatewayPorts()) {
                    ports.add(tcp(p));
                    ports.add(port("UDP", p));
                }
                egress.add(
                        new NetworkPolicyEgressRuleBuilder()
                                .withTo(podsIn(settings.gatewayNamespace(), n.gatewaySelector()))
                                .withPorts(ports)
                                .build());
            }
        }
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                .withName(SandboxObjects.policyName(podName))
                .withNamespace(settings.namespace())
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withPodSelector(selector(Map.of(SandboxObjects.SANDBOX, podName)))
                .withPolicyTypes("Ingress", "Egress")
                .withIngress(ingress)
                .withEgress(egress)
                .endSpec()
                .build();
    }

    private static NetworkPolicyEgressRule dns() {
        return new NetworkPolicyEgressRuleBuilder()
                .withTo(podsIn(DNS_NAMESPACE, DNS_PODS))
                .withPorts(port("UDP", 53), tcp(53))
                .build();
    }

    /** Pods with {@code labels} in namespace {@code namespace} (by its well-known name label). */
    private static NetworkPolicyPeer podsIn(String namespace, Map<String, String> labels) {
        return new NetworkPolicyPeerBuilder()
                .withNamespaceSelector(selector(Map.of(NAMESPACE_NAME, namespace)))
                .withPodSelector(selector(labels))
                .build();
    }

    private static LabelSelector selector(Map<String, String> labels) {
        return new LabelSelectorBuilder().withMatchLabels(labels).build();
    }

    private static NetworkPolicyPort tcp(int port) {
        return port("TCP", port);
    }

    private static NetworkPolicyPort port(String protocol, int port) {
        return new NetworkPolicyPortBuilder()
                .withProtocol(protocol)
                .withPort(new IntOrString(port))
                .build();
    }
}
