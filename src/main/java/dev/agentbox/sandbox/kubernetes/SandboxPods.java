package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxLabels;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The sandbox objects of the provider's namespace as it finds and removes them: a managed pod by
 * name, the managed pods listed, and a sandbox's pod, NetworkPolicy and Secret deleted together.
 *
 * <p>Only a pod labelled {@link SandboxLabels#MANAGED}{@code =true} is agentbox's: any other pod,
 * of any name, is never returned here, and the caller leaves it alone. Every API server failure is
 * {@code 503 provider-unavailable} ({@link #call}).
 */
final class SandboxPods {

    private static final Logger LOG = Logger.getLogger(SandboxPods.class.getName());

    private final KubernetesSandboxProvider provider;

    SandboxPods(KubernetesSandboxProvider provider) {
        this.provider = provider;
    }

    /** The managed pod {@code id}, in whatever state; empty when none or not agentbox's. */
    Optional<Pod> managed(String id) {
        Pod pod = call(() -> pods().withName(id).get());
        if (pod == null
                || pod.getMetadata().getLabels() == null
                || !"true".equals(pod.getMetadata().getLabels().get(SandboxLabels.MANAGED))) {
            return Optional.empty();
        }
        return Optional.of(pod);
    }

    /** Whether a pod of that name exists, agentbox's or not. */
    boolean exists(String id) {
        return call(() -> pods().withName(id).get()) != null;
    }

    /** The IP of egress pod {@code id}; empty for a pod of another network, or none. */
    Optional<String> egressIp(String id) {
        return managed(id).flatMap(SandboxPods::egressIp);
    }

    static Optional<String> egressIp(Pod p) {
        if (!"egress".equals(p.getMetadata().getLabels().get(SandboxObjects.NETWORK))
                || p.getStatus() == null
                || p.getStatus().getPodIP() == null
                || p.getStatus().getPodIP().isBlank()) {
            return Optional.empty();
        }
        return Optional.of(p.getStatus().getPodIP());
    }

    List<ManagedSandbox> listManaged() {
        return call(
                () ->
                        pods().withLabel(SandboxLabels.MANAGED, "true").list().getItems().stream()
                                .map(SandboxPods::managedSandbox)
                                .toList());
    }

    /** A listed pod with its labels as they were given (exact values from the annotations). */
    private static ManagedSandbox managedSandbox(Pod pod) {
        Map<String, String> labels = new LinkedHashMap<>(pod.getMetadata().getLabels());
        Map<String, String> exact = pod.getMetadata().getAnnotations();
        if (exact != null) {
            exact.forEach(
                    (k, v) -> {
                        if (labels.containsKey(k)) {
                            labels.put(k, v);
                        }
                    });
        }
        String created = pod.getMetadata().getCreationTimestamp();
        return new ManagedSandbox(
                pod.getMetadata().getName(),
                labels,
                created == null ? Instant.EPOCH : Instant.parse(created));
    }

    /** Deletes every object of sandbox {@code podName}; missing ones are fine. */
    void delete(String podName) {
        call(
                () -> {
                    pods().withName(podName).delete();
                    client().network()
                            .networkPolicies()
                            .inNamespace(provider.settings().namespace())
                            .withName(SandboxObjects.policyName(podName))
                            .delete();
                    provider.secrets().delete(podName);
                    return null;
                });
    }

    /** After a failed create: deletes what was made, never hiding the create's own error. */
    void deleteAfterFailedCreate(String podName) {
        try {
            delete(podName);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not delete the objects of failed sandbox " + podName, e);
        }
    }

    private NonNamespaceOperation<Pod, PodList, PodResource> pods() {
        return client().pods().inNamespace(provider.settings().namespace());
    }

    private KubernetesClient client() {
        return provider.client();
    }

    /** An API server that fails or cannot be reached is {@code 503 provider-unavailable}. */
    static <T> T call(Supplier<T> request) {
        try {
            return request.get();
        } catch (KubernetesClientException e) {
            throw ProblemException.providerUnavailable(
                    "The Kubernetes API server failed a request (HTTP " + e.getCode() + ").", e);
        }
    }
}
