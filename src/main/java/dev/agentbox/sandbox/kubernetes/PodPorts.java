package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.SandboxPorts;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * A pod's ports, reached by agentbox's port proxy at the pod's IP ({@code status.podIP}). Nothing
 * is published: no Service, no node port, no host port; the proxy of any replica connects to the
 * pod directly, which the pod's NetworkPolicy admits from agentbox's replicas for {@code bridge}
 * ({@link SandboxNetworkPolicy}; {@code egress} is refused on this provider).
 *
 * <p>A pod ensured with {@code network: none} admits only the helper port, so its ports are {@code
 * 422 unsupported-capability} (as a Docker sandbox without a network), rather than an address every
 * connection to which would hang until the cluster drops it. The helper port itself is never
 * proxied: it is agentbox's channel into the pod, not the sandbox's service, and the tenant holds
 * no business with it (its key is readable inside the pod).
 */
final class PodPorts implements SandboxPorts {

    private final KubernetesSandboxProvider provider;
    private final String podName;

    PodPorts(KubernetesSandboxProvider provider, String podName) {
        this.provider = provider;
        this.podName = podName;
    }

    @Override
    public Optional<Channel> published(int port) {
        return Optional.empty();
    }

    @Override
    public InetSocketAddress address(int port) {
        if (SandboxPorts.checkRange(port) == provider.settings().network().helperPort()) {
            throw ProblemException.invalidRequest(
                    "port "
                            + port
                            + " is reserved: agentbox's helper listens on it in every Kubernetes"
                            + " sandbox (agentbox.kubernetes.helper-port)");
        }
        // A pod being deleted or ended is a lost sandbox, as for resume: its IP may already be
        // another pod's.
        Pod pod =
                provider.managedPod(podName)
                        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                        .filter(p -> PodReadiness.hopeless(p).isEmpty())
                        .orElseThrow(
                                () ->
                                        new ProblemException(
                                                ProblemCode.NOT_FOUND,
                                                "Sandbox " + podName + " is gone."));
        String network = pod.getMetadata().getLabels().get(SandboxObjects.NETWORK);
        if (network == null || "none".equals(network)) {
            throw SandboxPorts.unreachable(
                    podName,
                    "has policy.network none: its NetworkPolicy admits only agentbox's helper port,"
                            + " so none of its ports can be reached; ensure it with policy.network"
                            + " bridge.");
        }
        String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
        if (ip == null || ip.isBlank()) {
            throw ProblemException.providerUnavailable(
                    "Sandbox pod " + podName + " has no IP address yet.", null);
        }
        return new InetSocketAddress(PodChannels.literal(ip), port);
    }
}
