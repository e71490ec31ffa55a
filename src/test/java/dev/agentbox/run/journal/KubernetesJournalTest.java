package dev.agentbox.run.journal;

import dev.agentbox.sandbox.kubernetes.KubernetesSandboxProvider;
import dev.agentbox.sandbox.kubernetes.KubernetesSettings;
import dev.agentbox.sandbox.kubernetes.MockServerLogs;
import dev.agentbox.sandbox.kubernetes.PodContainers;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.testing.NeedsDocker;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The journal suite on the Kubernetes provider: the mock API server, and each pod a Docker
 * container running this build's helper over TCP ({@link PodContainers}). Journals are launched
 * with exec over the channel and followed by the channel's push (or {@code tail -f} in a spawned
 * process), both against the real helper over the network.
 */
@NeedsDocker
@EnableKubernetesMockClient(crud = true)
class KubernetesJournalTest extends JournalReaderContract {

    private static final String NS = "sandboxes-journal";

    static KubernetesClient client;

    static final Logger QUIET = MockServerLogs.quiet();

    private PodContainers pods;
    private KubernetesSandboxProvider kubernetes;

    @Override
    protected SandboxProvider newProvider() {
        pods = PodContainers.start(client, NS);
        kubernetes =
                new KubernetesSandboxProvider(
                        KubernetesSettings.defaults()
                                .withNamespace(NS)
                                .withReadyTimeout(Duration.ofSeconds(60)),
                        client);
        return kubernetes;
    }

    @Override
    protected void cleanupExtras() {
        if (pods != null) {
            pods.close();
        }
        if (kubernetes != null) {
            kubernetes.close();
        }
    }
}
