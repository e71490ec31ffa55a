package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.Container;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The containers that already exist: resume, destroy, list.
 *
 * <p>Invariants: only containers labelled {@link SandboxLabels#MANAGED}{@code =true} are resumed,
 * destroyed or listed (any other container is as if absent, and left alone); a container that is
 * gone, or going, is never an error here — destroy treats it as done, resume as absent.
 */
final class ManagedContainers {

    private static final Logger LOG = Logger.getLogger(ManagedContainers.class.getName());

    private final DockerSandboxProvider provider;

    ManagedContainers(DockerSandboxProvider provider) {
        this.provider = provider;
    }

    private DockerSettings settings() {
        return provider.settings();
    }

    private DockerEngine engine() {
        return provider.engine();
    }

    Optional<SandboxHandle> resume(String id) {
        // A helper that answers proves the container runs (and is ours: only containers this
        // provider created have a socket folder): no engine round trip on this hot path.
        if (provider.channels().of(id).map(SandboxChannel::answers).orElse(false)) {
            return Optional.of(new DockerSandbox(provider, id));
        }
        InspectContainerResponse c;
        try {
            c =
                    DockerEngine.call(
                            "container inspect",
                            () -> engine().client().inspectContainerCmd(id).exec());
        } catch (NotFoundException e) {
            return Optional.empty();
        }
        Map<String, String> labels = c.getConfig().getLabels();
        if (labels == null || !"true".equals(labels.get(SandboxLabels.MANAGED))) {
            return Optional.empty();
        }
        InspectContainerResponse.ContainerState state = c.getState();
        if (state != null
                && ("removing".equals(state.getStatus()) || "dead".equals(state.getStatus()))) {
            return Optional.empty();
        }
        String name = c.getName().replaceFirst("^/", "");
        if (state == null || !Boolean.TRUE.equals(state.getRunning())) {
            try {
                DockerEngine.run(
                        "container start",
                        () -> engine().client().startContainerCmd(c.getId()).exec());
            } catch (NotModifiedException e) {
                // already running
            } catch (NotFoundException e) {
                return Optional.empty();
            }
            reapplyEgress(name, labels);
        }
        return Optional.of(new DockerSandbox(provider, name));
    }

    /**
     * Stops (short grace) and removes the container with its volumes. Gone = success; a container
     * that is not agentbox's is left alone (as if gone). A fork's private image is removed with it.
     */
    void destroy(String id) {
        InspectContainerResponse c;
        try {
            c =
                    DockerEngine.call(
                            "container inspect",
                            () -> engine().client().inspectContainerCmd(id).exec());
        } catch (NotFoundException e) {
            provider.channels().forget(id);
            return;
        }
        Map<String, String> labels =
                c.getConfig().getLabels() == null ? Map.of() : c.getConfig().getLabels();
        if (!"true".equals(labels.get(SandboxLabels.MANAGED))) {
            LOG.log(
                    Level.WARNING,
                    "refusing to destroy container {0}: it is not labelled {1}=true",
                    new Object[] {id, SandboxLabels.MANAGED});
            return;
        }
        releaseEgress(c);
        try {
            DockerEngine.run(
                    "container stop",
                    () ->
                            engine().client()
                                    .stopContainerCmd(c.getId())
                                    .withTimeout((int) settings().stopGrace().toSeconds())
                                    .exec());
        } catch (NotFoundException e) {
            provider.channels().forget(id);
            return;
        } catch (NotModifiedException e) {
            // already stopped
        }
        try {
            DockerEngine.run(
                    "container remove",
                    () ->
                            engine().client()
                                    .removeContainerCmd(c.getId())
                                    .withForce(true)
                                    .withRemoveVolumes(true)
                                    .exec());
        } catch (NotFoundException e) {
            // gone already: success
        } catch (ConflictException e) {
            // removal already in progress
            LOG.log(Level.FINE, "removal of {0} already in progress", id);
        }
        provider.channels().forget(id);
        String forkImage = labels.get(DockerSandboxProvider.FORK_IMAGE);
        if (forkImage != null) {
            try {
                DockerEngine.run(
                        "image remove",
                        () -> engine().client().removeImageCmd(forkImage).withForce(false).exec());
            } catch (NotFoundException | ConflictException e) {
                // gone already, or another fork still uses it
            }
        }
    }

    /**
     * A stopped egress sandbox that starts again may have another address on its network (and its
     * gateway may have been made anew): its rules, kept in its labels, are written again before the
     * caller runs anything in it. Its brokered secrets come with the ensure that resumes it.
     */
    private void reapplyEgress(String name, Map<String, String> labels) {
        String rules = labels.get(DockerSandboxProvider.EGRESS);
        if (!"egress".equals(labels.get(DockerSandboxProvider.NETWORK)) || rules == null) {
            return;
        }
        EgressGateways gateways = provider.gateways();
        InspectContainerResponse c =
                DockerEngine.call(
                        "container inspect",
                        () -> engine().client().inspectContainerCmd(name).exec());
        // The gateway of the network the sandbox is on: one made before its names took the
        // installation in (NetworkScope) stays on its old network, behind its old gateway.
        String network =
                egressNetwork(c)
                        .orElseGet(() -> EgressGateways.networkName(NetworkScope.of(labels)));
        Optional<String> installation = Optional.ofNullable(labels.get(SandboxLabels.INSTALLATION));
        gateways.attach(
                gateways.ensureFor(network, installation),
                name,
                c.getId(),
                EgressLabel.parse(rules),
                installation);
    }

    /** The egress network ({@code agentbox-te-…}) container {@code c} is on, if any. */
    private static Optional<String> egressNetwork(InspectContainerResponse c) {
        if (c.getNetworkSettings() == null || c.getNetworkSettings().getNetworks() == null) {
            return Optional.empty();
        }
        return c.getNetworkSettings().getNetworks().keySet().stream()
                .filter(n -> n.startsWith(EgressGateways.NETWORK_PREFIX))
                .findFirst();
    }

    /** An egress sandbox's rules leave its gateway with it (docs/egress.md). */
    private void releaseEgress(InspectContainerResponse c) {
        if (c.getNetworkSettings() == null || c.getNetworkSettings().getNetworks() == null) {
            return;
        }
        String name = c.getName() == null ? c.getId() : c.getName().replaceFirst("^/", "");
        c.getNetworkSettings()
                .getNetworks()
                .forEach(
                        (network, n) -> {
                            if (network.startsWith(EgressGateways.NETWORK_PREFIX)
                                    && n.getIpAddress() != null
                                    && !n.getIpAddress().isEmpty()) {
                                provider.gateways().release(network, name, n.getIpAddress());
                            }
                        });
    }

    List<ManagedSandbox> listManaged() {
        List<Container> list =
                DockerEngine.call(
                        "container list",
                        () ->
                                engine().client()
                                        .listContainersCmd()
                                        .withShowAll(true)
                                        .withLabelFilter(Map.of(SandboxLabels.MANAGED, "true"))
                                        .exec());
        List<ManagedSandbox> managed =
                list.stream()
                        .map(
                                c ->
                                        new ManagedSandbox(
                                                c.getNames() != null && c.getNames().length > 0
                                                        ? c.getNames()[0].replaceFirst("^/", "")
                                                        : c.getId(),
                                                c.getLabels() == null ? Map.of() : c.getLabels(),
                                                Instant.ofEpochSecond(
                                                        c.getCreated() == null
                                                                ? 0
                                                                : c.getCreated())))
                        .toList();
        // Every listing (the reaper's orphan pass) also clears the socket folders of containers
        // removed behind the provider's back.
        provider.channels()
                .prune(
                        managed.stream()
                                .map(ManagedSandbox::id)
                                .collect(java.util.stream.Collectors.toSet()));
        return managed;
    }
}
