package dev.agentbox.sandbox.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Makes the provider's client from its configured credentials. */
final class KubernetesClients {

    private KubernetesClients() {}

    /**
     * In-cluster: fabric8's auto-configuration, which in a pod reads the service account's token
     * and CA. Kubeconfig: the named file (or fabric8's default lookup) and context.
     */
    static KubernetesClient connect(KubernetesSettings.Credentials credentials) {
        Config config;
        if (credentials.inCluster() || credentials.kubeconfig().isEmpty()) {
            config = Config.autoConfigure(credentials.context().orElse(null));
        } else {
            Path file = Path.of(credentials.kubeconfig().get());
            try {
                config =
                        Config.fromKubeconfig(
                                credentials.context().orElse(null),
                                Files.readString(file),
                                file.toString());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read kubeconfig " + file, e);
            }
        }
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
