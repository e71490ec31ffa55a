package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.docker.ContainerFactory.ImageRole;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SnapshotRef;
import java.time.Clock;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Snapshots and forks: a snapshot is a committed image in {@link
 * DockerSettings#snapshotRepository()}, labelled {@link SandboxLabels#SNAPSHOT_OF}; a fork is a
 * snapshot plus a new container from it.
 *
 * <p>Invariants: only images carrying the snapshot label are restored or deleted (never a base
 * image; anything else is not-found, or left alone); a fork records its private image in {@link
 * DockerSandboxProvider#FORK_IMAGE} so that destroying the fork removes it, and a fork whose
 * container could not be created deletes that image again.
 */
final class DockerSnapshots {

    private final DockerSandboxProvider provider;
    private final ContainerFactory containers;
    private final Clock clock;

    DockerSnapshots(DockerSandboxProvider provider, ContainerFactory containers, Clock clock) {
        this.provider = provider;
        this.containers = containers;
        this.clock = clock;
    }

    private DockerSettings settings() {
        return provider.settings();
    }

    private DockerEngine engine() {
        return provider.engine();
    }

    /**
     * Only images this provider committed (labelled as snapshots) can be restored; anything else is
     * not-found.
     */
    SandboxHandle restoreSnapshot(String snapshotId, SandboxCreateInput input) {
        if (!isSnapshotImage(snapshotId)) {
            throw ProblemException.notFound("Snapshot " + snapshotId + " does not exist.");
        }
        return containers.createFrom(snapshotId, input, ImageRole.SNAPSHOT, Map.of());
    }

    /**
     * Deletes a snapshot image; refuses images that are not agentbox snapshots (never a base
     * image).
     */
    void deleteSnapshot(String snapshotId) {
        if (!isSnapshotImage(snapshotId)) {
            return;
        }
        try {
            DockerEngine.run(
                    "image remove",
                    () -> engine().client().removeImageCmd(snapshotId).withForce(true).exec());
        } catch (NotFoundException e) {
            // already gone
        }
    }

    private boolean isSnapshotImage(String ref) {
        try {
            Map<String, String> labels =
                    DockerEngine.call(
                                    "image inspect",
                                    () -> engine().client().inspectImageCmd(ref).exec())
                            .getConfig()
                            .getLabels();
            return labels != null && labels.containsKey(SandboxLabels.SNAPSHOT_OF);
        } catch (NotFoundException e) {
            return false;
        }
    }

    /** Commits the container to {@code <snapshotRepository>:<sandbox id>-<millis>}. */
    SnapshotRef snapshot(String containerName, Optional<String> label) {
        String tag = tagFor(containerName + "-" + clock.millis());
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(SandboxLabels.MANAGED, "true");
        labels.put(SandboxLabels.SNAPSHOT_OF, containerName);
        label.ifPresent(l -> labels.put("dev.agentbox.snapshot-label", l));
        DockerEngine.call(
                "container commit",
                () ->
                        engine().client()
                                .commitCmd(containerName)
                                .withRepository(settings().snapshotRepository())
                                .withTag(tag)
                                .withLabels(labels)
                                .exec());
        return new SnapshotRef(settings().snapshotRepository() + ":" + tag, label);
    }

    /**
     * Fork = commit + create from that image; the fork carries the source's key and tenant labels.
     */
    SandboxHandle fork(String containerName) {
        InspectContainerResponse c =
                DockerEngine.call(
                        "container inspect",
                        () -> engine().client().inspectContainerCmd(containerName).exec());
        SnapshotRef ref = snapshot(containerName, Optional.of("fork"));
        Map<String, String> labels =
                c.getConfig().getLabels() == null ? Map.of() : c.getConfig().getLabels();
        SandboxCreateInput input = SandboxCreateInput.defaults();
        if (labels.containsKey(SandboxLabels.KEY)) {
            input =
                    input.withKey(
                            labels.get(SandboxLabels.KEY),
                            labels.getOrDefault(SandboxLabels.TENANT, ""));
        }
        if (labels.containsKey(SandboxLabels.INSTALLATION)) {
            input = input.withInstallation(labels.get(SandboxLabels.INSTALLATION));
        }
        HostConfig hc = c.getHostConfig();
        SandboxPolicy policy = SandboxPolicy.defaults();
        // The label, not the network mode: a bridge sandbox's mode is its tenant network's id,
        // and an egress sandbox's rules are nowhere else.
        if ("egress".equals(labels.get(DockerSandboxProvider.NETWORK))) {
            policy =
                    policy.withNetwork(SandboxPolicy.Network.EGRESS)
                            .withEgress(
                                    EgressLabel.parse(
                                            labels.getOrDefault(DockerSandboxProvider.EGRESS, "")));
        }
        if ("bridge".equals(labels.get(DockerSandboxProvider.NETWORK))) {
            policy = policy.withNetwork(SandboxPolicy.Network.BRIDGE);
            ExposedPort[] exposedPorts = c.getConfig().getExposedPorts();
            if (exposedPorts != null) {
                policy =
                        policy.withPorts(
                                Arrays.stream(exposedPorts).map(ExposedPort::getPort).toList());
            }
        }
        if (hc != null
                && hc.getMemory() != null
                && hc.getNanoCPUs() != null
                && hc.getPidsLimit() != null) {
            policy =
                    policy.withLimits(
                            (int) (hc.getMemory() / (1024 * 1024)),
                            hc.getNanoCPUs() / 1e9,
                            hc.getPidsLimit().intValue());
        }
        try {
            return containers.createFrom(
                    ref.id(),
                    input.withPolicy(policy),
                    ImageRole.SNAPSHOT,
                    Map.of(DockerSandboxProvider.FORK_IMAGE, ref.id()));
        } catch (RuntimeException e) {
            try {
                deleteSnapshot(ref.id());
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static String tagFor(String s) {
        String t = s.replaceAll("[^a-zA-Z0-9_.-]", "-");
        if (t.length() > 128) {
            t = t.substring(t.length() - 128);
        }
        return t.replaceFirst("^[.-]+", "x");
    }
}
