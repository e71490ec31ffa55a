package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.channel.HostSandboxd;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Plays the kubelet for the mock API server with real containers: every pod added to the namespace
 * becomes a Docker container run as the pod would run — its image, command, working directory,
 * environment and DNS servers (an egress pod's {@code dnsConfig}), user 1000, every capability
 * dropped, no new privileges, the workspace a tmpfs of the pod's user, the channel key from the
 * sandbox's Secret (as written by the provider) a read-only file at the pod's key path — and, as
 * the pod's helper init container would copy it there, this build's helper at the helper's path,
 * read-only (a pod without that init container runs its image's own). Then the pod's {@code
 * status.podIP} becomes the container's address on Docker's default bridge, and the pod Ready once
 * its readiness probe's port accepts a connection there, so the provider's channel reaches the real
 * helper over the network.
 *
 * <p>A pod deleted from the mock takes its container with it; {@link #close} removes every
 * container this fixture started, whatever happened.
 */
public final class PodContainers implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PodContainers.class.getName());

    /** On every container of this fixture, for a manual clean-up after a killed JVM. */
    static final String LABEL = "dev.agentbox.test=kubernetes-pod";

    private final KubernetesClient client;
    private final String namespace;
    private final Path keys;
    private final Path helper;
    private final Map<String, String> containers = new ConcurrentHashMap<>();
    private final ExecutorService kubelet = Executors.newSingleThreadExecutor();
    private final Watch watch;

    private PodContainers(KubernetesClient client, String namespace) throws IOException {
        this.client = client;
        this.namespace = namespace;
        this.keys = Files.createTempDirectory("agentbox-pod-keys");
        this.helper = HostSandboxd.binary(false);
        this.watch =
                client.pods()
                        .inNamespace(namespace)
                        .watch(
                                new Watcher<>() {
                                    @Override
                                    public void eventReceived(Action action, Pod pod) {
                                        String name = pod.getMetadata().getName();
                                        if (action == Action.ADDED && pod.getStatus() == null) {
                                            kubelet.execute(() -> run(name));
                                        } else if (action == Action.DELETED) {
                                            kubelet.execute(() -> remove(name));
                                        }
                                    }

                                    @Override
                                    public void onClose(WatcherException cause) {}
                                });
    }

    /** Starts playing the kubelet of {@code namespace}. */
    public static PodContainers start(KubernetesClient client, String namespace) {
        try {
            return new PodContainers(client, namespace);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many containers run for pods now. */
    public int running() {
        return containers.size();
    }

    private void run(String podName) {
        try {
            Pod pod = client.pods().inNamespace(namespace).withName(podName).get();
            if (pod == null) {
                return;
            }
            Secret secret =
                    client.secrets()
                            .inNamespace(namespace)
                            .withName(SandboxObjects.secretName(podName))
                            .get();
            Path key = keys.resolve(podName);
            Files.write(
                    key,
                    Base64.getDecoder()
                            .decode(secret.getData().get(SandboxObjects.CHANNEL_KEY_ITEM)));
            // Readable by the pod's user, as the pod's fsGroup makes the Secret's file.
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("r--r--r--"));
            Container c = pod.getSpec().getContainers().get(0);
            String container = "agentbox-pod-" + UUID.randomUUID().toString().substring(0, 8);
            List<String> cmd =
                    new ArrayList<>(
                            List.of(
                                    "run",
                                    "-d",
                                    "--name",
                                    container,
                                    "--label",
                                    LABEL,
                                    "--user",
                                    "1000:1000",
                                    "--cap-drop",
                                    "ALL",
                                    "--security-opt",
                                    "no-new-privileges",
                                    "--tmpfs",
                                    c.getWorkingDir() + ":rw,exec,uid=1000,gid=1000,mode=0755",
                                    "-v",
                                    key + ":" + SandboxObjects.CHANNEL_KEY_FILE + ":ro",
                                    "--workdir",
                                    c.getWorkingDir()));
            // the helper init container's work: its volume holds the helper, this build's
            if (pod.getSpec().getInitContainers() != null
                    && pod.getSpec().getInitContainers().stream()
                            .anyMatch(i -> i.getName().equals(SandboxPodSpec.HELPER_VOLUME))) {
                cmd.addAll(List.of("-v", helper + ":" + SandboxObjects.HELPER + ":ro"));
            }
            if (c.getSecurityContext() != null
                    && Boolean.TRUE.equals(c.getSecurityContext().getReadOnlyRootFilesystem())) {
                cmd.addAll(List.of("--read-only", "--tmpfs", "/tmp:rw,exec,mode=1777"));
            }
            // dnsPolicy None: the pod's resolver is only what its dnsConfig names
            if (pod.getSpec().getDnsConfig() != null
                    && pod.getSpec().getDnsConfig().getNameservers() != null) {
                for (String ns : pod.getSpec().getDnsConfig().getNameservers()) {
                    cmd.addAll(List.of("--dns", ns));
                }
            }
            for (EnvVar e : c.getEnv()) {
                cmd.addAll(List.of("-e", e.getName() + "=" + e.getValue()));
            }
            cmd.addAll(List.of("--entrypoint", c.getCommand().get(0), c.getImage()));
            cmd.addAll(c.getCommand().subList(1, c.getCommand().size()));
            docker(cmd.toArray(String[]::new));
            containers.put(podName, container);
            String ip =
                    docker("inspect", "-f", "{{.NetworkSettings.IPAddress}}", container).strip();
            awaitProbe(c, ip);
            pod = client.pods().inNamespace(namespace).withName(podName).get();
            if (pod == null) {
                remove(podName);
                return;
            }
            pod.setStatus(readyStatus(ip).build());
            client.pods().inNamespace(namespace).resource(pod).updateStatus();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "could not run pod " + podName, e);
        }
    }

    /** A pod's status as the kubelet reports it once the pod is Ready at {@code ip}. */
    static PodStatusBuilder readyStatus(String ip) {
        return new PodStatusBuilder()
                .withPhase("Running")
                .withPodIP(ip)
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition();
    }

    /**
     * As the kubelet does, Ready only once the container's readiness probe passes: its TCP port
     * accepts a connection at the pod's address (a pod reported Ready when {@code docker run}
     * returned had a first command meet "no route to host" or a refused connection now and then). A
     * container whose helper never listens stays not Ready, and the provider's create times out.
     */
    private static void awaitProbe(Container c, String ip) throws IOException {
        if (c.getReadinessProbe() == null || c.getReadinessProbe().getTcpSocket() == null) {
            return;
        }
        int port = c.getReadinessProbe().getTcpSocket().getPort().getIntVal();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (java.net.Socket probe = new java.net.Socket()) {
                probe.connect(new java.net.InetSocketAddress(ip, port), 500);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw notYet;
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while probing " + ip + ":" + port, e);
            }
        }
    }

    /** Removes the container of pod {@code podName}, as deleting a pod stops its containers. */
    public void remove(String podName) {
        String container = containers.remove(podName);
        if (container != null) {
            try {
                docker("rm", "-f", container);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not remove " + container, e);
            }
        }
    }

    @Override
    public void close() {
        watch.close();
        kubelet.shutdown();
        try {
            kubelet.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List.copyOf(containers.keySet()).forEach(this::remove);
        try (var files = Files.list(keys)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(keys);
        } catch (IOException e) {
            LOG.log(Level.FINE, "removing " + keys, e);
        }
    }

    /** Runs {@code docker ARGS} and returns its stdout; a failure throws with its stderr. */
    private static String docker(String... args) {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).start();
            CompletableFuture<String> err =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return new String(
                                            p.getErrorStream().readAllBytes(),
                                            StandardCharsets.UTF_8);
                                } catch (IOException e) {
                                    return e.toString();
                                }
                            });
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "docker " + String.join(" ", args) + " did not end");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        "docker " + String.join(" ", args) + " failed: " + err.join());
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
