package dev.agentbox.sandbox.kubernetes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Plays the kubelet against the mock API server, which runs no pods: every pod added to the
 * namespace gets, a little later, the status {@link #behaviour} gives it (ready by default), as a
 * status update the provider's watch sees.
 */
final class FakeKubelet implements AutoCloseable {

    /** A pod that started and passed its readiness. */
    static PodStatus ready() {
        return readyAt("10.244.0.7");
    }

    /** A ready pod with the IP {@code podIp}. */
    static PodStatus readyAt(String podIp) {
        return new PodStatusBuilder()
                .withPhase("Running")
                .withPodIP(podIp)
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .build();
    }

    /** A pod whose image cannot be pulled. */
    static PodStatus imagePullBackOff() {
        return new PodStatusBuilder()
                .withPhase("Pending")
                .addNewContainerStatus()
                .withName(SandboxPodSpec.CONTAINER)
                .withNewState()
                .withNewWaiting()
                .withReason("ImagePullBackOff")
                .endWaiting()
                .endState()
                .endContainerStatus()
                .build();
    }

    /** A pod that is scheduled nowhere, ever: no status change at all. */
    static PodStatus never() {
        return null;
    }

    private final KubernetesClient client;
    private final String namespace;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final Watch watch;
    volatile Function<Pod, PodStatus> behaviour = p -> ready();

    /** How long after a pod is added its status is reported. */
    volatile long reportDelayMs = 50;

    FakeKubelet(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        this.watch =
                client.pods()
                        .inNamespace(namespace)
                        .watch(
                                new Watcher<>() {
                                    @Override
                                    public void eventReceived(Action action, Pod pod) {
                                        if (action == Action.ADDED && pod.getStatus() == null) {
                                            PodStatus status = behaviour.apply(pod);
                                            if (status != null) {
                                                timer.schedule(
                                                        () -> report(pod, status),
                                                        reportDelayMs,
                                                        TimeUnit.MILLISECONDS);
                                            }
                                        }
                                    }

                                    @Override
                                    public void onClose(WatcherException cause) {}
                                });
    }

    private void report(Pod pod, PodStatus status) {
        Pod current =
                client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).get();
        if (current != null) {
            current.setStatus(status);
            client.pods().inNamespace(namespace).resource(current).updateStatus();
        }
    }

    @Override
    public void close() {
        watch.close();
        timer.shutdownNow();
    }
}
