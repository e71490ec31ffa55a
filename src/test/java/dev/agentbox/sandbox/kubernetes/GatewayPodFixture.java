package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.it.DockerCli;
import dev.agentbox.sandbox.channel.HostSandboxd;
import dev.agentbox.sandbox.egress.EgressSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The egress gateway of deploy/kubernetes/egress-gateway.yaml, for the mock API server: a container
 * of the real gateway image running this build's helper beside the gateway's own entry point, as
 * the Deployment's container does, and the objects a replica looks for in the namespace — the key
 * Secret, the Service (its cluster IP is the container's address) and a Ready pod at that address.
 * Egress pods run by {@link PodContainers} then reach it as their proxy and DNS server.
 */
public final class GatewayPodFixture implements AutoCloseable {

    private static final String LABEL = "dev.agentbox.test=kubernetes-egress-gateway";
    static final String POD = "agentbox-egress-0";

    private final KubernetesClient client;
    private final String namespace;
    private final String container;
    private final String ip;
    private final Path keyFile;

    private GatewayPodFixture(
            KubernetesClient client, String namespace, String container, String ip, Path keyFile) {
        this.client = client;
        this.namespace = namespace;
        this.container = container;
        this.ip = ip;
        this.keyFile = keyFile;
    }

    /**
     * Starts the gateway in {@code namespace}; with {@code operatorCa}, a directory holding {@code
     * ca.pem} and {@code ca.key} given to it as the Secret {@code agentbox-egress-ca} would be.
     */
    public static GatewayPodFixture start(
            KubernetesClient client, String namespace, Optional<Path> operatorCa) {
        try {
            byte[] key = new byte[32];
            new SecureRandom().nextBytes(key);
            Path keyFile = Files.createTempFile("egress-gateway-key", "");
            Files.write(keyFile, key);
            String name = "agentbox-egress-k8s-" + UUID.randomUUID().toString().substring(0, 8);
            List<String> run =
                    new ArrayList<>(
                            List.of(
                                    "run",
                                    "-d",
                                    "--name",
                                    name,
                                    "--label",
                                    LABEL,
                                    "--init",
                                    "--tmpfs",
                                    "/run/agentbox-egress/secrets:rw,noexec,nosuid,nodev,size=1m,mode=0700",
                                    "-v",
                                    HostSandboxd.binary(false)
                                            + ":/opt/agentbox/bin/agentbox-sandboxd:ro",
                                    "-v",
                                    keyFile + ":" + SandboxObjects.CHANNEL_KEY_FILE + ":ro"));
            operatorCa.ifPresent(
                    ca ->
                            run.addAll(
                                    List.of(
                                            "-v",
                                            ca + ":/run/agentbox-egress-ca:ro",
                                            "-e",
                                            "AGENTBOX_EGRESS_CA_DIR=/run/agentbox-egress-ca")));
            run.addAll(
                    List.of(
                            "--entrypoint",
                            "/bin/sh",
                            EgressSettings.DEFAULT_IMAGE,
                            "-c",
                            "/opt/agentbox/bin/agentbox-sandboxd serve-tcp 7070 "
                                    + SandboxObjects.CHANNEL_KEY_FILE
                                    + " & exec /usr/local/bin/agentbox-egress"));
            DockerCli.ok(run.toArray(String[]::new));
            String ip =
                    DockerCli.ok("inspect", "-f", "{{.NetworkSettings.IPAddress}}", name).strip();
            GatewayPodFixture f = new GatewayPodFixture(client, namespace, name, ip, keyFile);
            f.awaitListening();
            client.secrets()
                    .inNamespace(namespace)
                    .resource(
                            new SecretBuilder()
                                    .withNewMetadata()
                                    .withName(
                                            KubernetesSettings.Network.defaults()
                                                    .gatewayKeySecret())
                                    .endMetadata()
                                    .withData(
                                            Map.of(
                                                    GatewayPods.KEY_ITEM,
                                                    Base64.getEncoder().encodeToString(key)))
                                    .build())
                    .create();
            client.services().inNamespace(namespace).resource(service(ip)).create();
            f.pod(0);
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The gateway's Service as its manifest makes it, at {@code clusterIp}. */
    static Service service(String clusterIp) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(KubernetesSettings.Network.defaults().gatewayService())
                .endMetadata()
                .withNewSpec()
                .withClusterIP(clusterIp)
                .endSpec()
                .build();
    }

    /** The gateway's address: its pod IP and its Service's cluster IP. */
    public String ip() {
        return ip;
    }

    /** The rules file the gateway holds for the pod at {@code podIp}, empty when it has none. */
    public Optional<String> rulesFor(String podIp) {
        DockerCli.Result r =
                DockerCli.run(
                        "exec",
                        container,
                        "cat",
                        "/etc/agentbox-egress/sandboxes/" + podIp + ".rules");
        return r.exitCode() == 0 ? Optional.of(r.out()) : Optional.empty();
    }

    /** The gateway's container, for {@code docker exec}. */
    public String container() {
        return container;
    }

    /**
     * The gateway's pod object, Ready at the container's address, its container restarted {@code
     * restarts} times (a restart loses the container's files).
     */
    void pod(int restarts) {
        client.pods()
                .inNamespace(namespace)
                .resource(readyPod(POD, ip, restarts))
                .createOr(p -> p.update());
    }

    /**
     * A gateway pod object as the gateway's Deployment makes it once Ready: its selector's labels,
     * a new UID, at {@code ip}, its container restarted {@code restarts} times.
     */
    static Pod readyPod(String name, String ip, int restarts) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withUid(UUID.randomUUID().toString())
                .withLabels(KubernetesSettings.Network.defaults().gatewaySelector())
                .endMetadata()
                .withStatus(
                        PodContainers.readyStatus(ip)
                                .addNewContainerStatus()
                                .withName("gateway")
                                .withRestartCount(restarts)
                                .endContainerStatus()
                                .build())
                .build();
    }

    /**
     * A second gateway pod object, Ready, whose helper never answers: its address {@code ip} is on
     * this host's loopback, where no helper listens (a replica going away in a rollout, as a reader
     * that listed it a moment ago finds it). Closing it deletes the object.
     */
    AutoCloseable unansweringPod(String ip) {
        String name = "agentbox-egress-unanswering";
        client.pods()
                .inNamespace(namespace)
                .resource(readyPod(name, ip, 0))
                .createOr(p -> p.update());
        return () -> client.pods().inNamespace(namespace).withName(name).delete();
    }

    private void awaitListening() {
        for (int i = 0; i < 200; i++) {
            if (DockerCli.run(
                                    "exec",
                                    container,
                                    "bash",
                                    "-c",
                                    "test -s /run/squid.pid && test -s /run/dnsmasq.pid"
                                            + " && (exec 3<>/dev/tcp/127.0.0.1/3128)")
                            .exitCode()
                    == 0) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        throw new IllegalStateException(
                "the gateway container did not start: " + DockerCli.run("logs", container).out());
    }

    @Override
    public void close() {
        DockerCli.run("rm", "-f", container);
        try {
            Files.deleteIfExists(keyFile);
        } catch (IOException e) {
            // a temp file
        }
    }
}
