package dev.agentbox.sandbox.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a new sandbox's pod to be ready, by watching it (fabric8's {@code waitUntilCondition}:
 * list, then watch, so a change between the create and the watch is not missed).
 *
 * <p>The wait ends early, as a failure, when the pod can no longer become ready on its own: it was
 * deleted, it ended ({@code Failed}/{@code Succeeded}), or its container waits for a reason no
 * retry fixes (an image that cannot be pulled, a bad spec). The caller deletes the pod then.
 */
final class PodReadiness {

    /** Container waiting reasons that do not go away by waiting. */
    private static final Set<String> HOPELESS =
            Set.of(
                    "ErrImagePull",
                    "ImagePullBackOff",
                    "InvalidImageName",
                    "CreateContainerConfigError",
                    "CreateContainerError",
                    "RunContainerError",
                    "CrashLoopBackOff");

    private PodReadiness() {}

    /** Why the pod cannot become ready, or empty when it is ready. */
    static Optional<String> await(
            KubernetesClient client, String namespace, String name, Duration timeout) {
        Pod seen;
        try {
            seen =
                    client.pods()
                            .inNamespace(namespace)
                            .withName(name)
                            .waitUntilCondition(
                                    p -> p == null || ready(p) || hopeless(p).isPresent(),
                                    timeout.toMillis(),
                                    TimeUnit.MILLISECONDS);
        } catch (KubernetesClientTimeoutException e) {
            return Optional.of("not ready within " + timeout.toMillis() + " ms");
        }
        if (seen == null) {
            return Optional.of("deleted before it was ready");
        }
        return ready(seen) ? Optional.empty() : hopeless(seen);
    }

    static boolean ready(Pod pod) {
        List<PodCondition> conditions =
                pod.getStatus() == null ? null : pod.getStatus().getConditions();
        return conditions != null
                && conditions.stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The reason the pod will not become ready by waiting, if there is one. */
    static Optional<String> hopeless(Pod pod) {
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        String phase = pod.getStatus().getPhase();
        if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
            return Optional.of("its pod ended (phase " + phase + ")");
        }
        List<ContainerStatus> containers = pod.getStatus().getContainerStatuses();
        if (containers == null) {
            return Optional.empty();
        }
        for (ContainerStatus c : containers) {
            if (c.getState() != null
                    && c.getState().getWaiting() != null
                    && HOPELESS.contains(c.getState().getWaiting().getReason())) {
                return Optional.of(
                        "its container is waiting: " + c.getState().getWaiting().getReason());
            }
        }
        return Optional.empty();
    }
}
