package dev.agentbox.sandbox.docker;

import dev.agentbox.sandbox.spi.ImageAllowlist;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * Configuration of the Docker provider (MicroProfile Config keys in brackets).
 *
 * @param enabled [agentbox.providers.docker.enabled] default true
 * @param host [agentbox.docker.host] engine endpoint, default unix:///var/run/docker.sock
 * @param image [agentbox.docker.image] default image, default agentbox/sandbox:bookworm
 * @param defaultMemoryMb [agentbox.docker.default-memory-mb] memory (and memory+swap) limit,
 *     default 2048
 * @param defaultCpus [agentbox.docker.default-cpus] CPU quota in cores, default 1.0
 * @param defaultPids [agentbox.docker.default-pids] pids limit, default 512
 * @param stopGrace [agentbox.docker.stop-grace-seconds] grace before SIGKILL on destroy, default 2
 * @param snapshotRepository [agentbox.docker.snapshot-repository] repository of snapshot images,
 *     default agentbox/snapshot
 * @param publishHost [agentbox.docker.publish-host] host interface published ports bind to and URLs
 *     name, default 127.0.0.1
 * @param hardening images, networks and the optional parts of the container profile
 * @param channel the sandbox channel (docs/sandbox-channel.md)
 */
public record DockerSettings(
        boolean enabled,
        String host,
        String image,
        int defaultMemoryMb,
        double defaultCpus,
        int defaultPids,
        Duration stopGrace,
        String snapshotRepository,
        String publishHost,
        Hardening hardening,
        ChannelSettings channel) {

    /**
     * The images a create may name, bridge networking, and the opt-in parts of the profile.
     *
     * @param images [agentbox.docker.images] exact repo:tag names; empty = the default image, its
     *     BusyBox twin and agentbox/sandbox:agents
     * @param bridgeEnabled [agentbox.docker.bridge-enabled] default true
     * @param user [agentbox.docker.user] user[:group] every container runs as; unset = the image's
     *     user
     * @param readOnlyRoot [agentbox.docker.read-only-root] default false: read-only root filesystem
     *     with /workspace on a volume and /tmp on tmpfs — snapshots and forks then lose /workspace
     * @param nofile [agentbox.docker.nofile] open-files limit (soft = hard), default 8192; 0 = the
     *     engine's (never above dockerd's own hard limit: the container would not start)
     * @param storageSize [agentbox.docker.storage-size] writable-layer size (e.g. 10G); needs
     *     overlay2 on xfs with pquota, unset = no limit
     */
    public record Hardening(
            Optional<ImageAllowlist> images,
            boolean bridgeEnabled,
            Optional<String> user,
            boolean readOnlyRoot,
            long nofile,
            Optional<String> storageSize) {

        public static Hardening defaults() {
            return new Hardening(
                    Optional.empty(), true, Optional.empty(), false, 8192, Optional.empty());
        }

        public Hardening withImages(ImageAllowlist list) {
            return new Hardening(
                    Optional.of(list), bridgeEnabled, user, readOnlyRoot, nofile, storageSize);
        }

        public Hardening withReadOnlyRoot(boolean r) {
            return new Hardening(images, bridgeEnabled, user, r, nofile, storageSize);
        }

        public Hardening withUser(String u) {
            return new Hardening(
                    images, bridgeEnabled, Optional.of(u), readOnlyRoot, nofile, storageSize);
        }
    }

    public DockerSettings {
        hardening = hardening == null ? Hardening.defaults() : hardening;
        channel = channel == null ? ChannelSettings.defaults() : channel;
        String snapshots = snapshotRepository + ":";
        hardening
                .images()
                .ifPresent(
                        list ->
                                list.names().stream()
                                        .filter(n -> n.startsWith(snapshots))
                                        .findAny()
                                        .ifPresent(
                                                n -> {
                                                    throw new IllegalArgumentException(
                                                            ImageAllowlist.KEY
                                                                    + " must not name snapshot images ("
                                                                    + n
                                                                    + "): they are reached only through their own sandbox's restore or fork");
                                                }));
    }

    public static DockerSettings defaults() {
        return new DockerSettings(
                true,
                "unix:///var/run/docker.sock",
                "agentbox/sandbox:bookworm",
                2048,
                1.0,
                512,
                Duration.ofSeconds(2),
                "agentbox/snapshot",
                "127.0.0.1",
                Hardening.defaults(),
                ChannelSettings.defaults());
    }

    public static DockerSettings fromConfig(Config c) {
        DockerSettings d = defaults();
        Hardening h =
                new Hardening(
                        c.getOptionalValue(ImageAllowlist.KEY, String.class)
                                .map(v -> ImageAllowlist.fromConfig(c)),
                        c.getOptionalValue("agentbox.docker.bridge-enabled", Boolean.class)
                                .orElse(true),
                        c.getOptionalValue("agentbox.docker.user", String.class)
                                .filter(u -> !u.isBlank()),
                        c.getOptionalValue("agentbox.docker.read-only-root", Boolean.class)
                                .orElse(false),
                        c.getOptionalValue("agentbox.docker.nofile", Long.class)
                                .orElse(d.hardening().nofile()),
                        c.getOptionalValue("agentbox.docker.storage-size", String.class)
                                .filter(s -> !s.isBlank()));
        return new DockerSettings(
                c.getOptionalValue("agentbox.providers.docker.enabled", Boolean.class)
                        .orElse(d.enabled()),
                c.getOptionalValue("agentbox.docker.host", String.class).orElse(d.host()),
                c.getOptionalValue("agentbox.docker.image", String.class).orElse(d.image()),
                c.getOptionalValue("agentbox.docker.default-memory-mb", Integer.class)
                        .orElse(d.defaultMemoryMb()),
                c.getOptionalValue("agentbox.docker.default-cpus", Double.class)
                        .orElse(d.defaultCpus()),
                c.getOptionalValue("agentbox.docker.default-pids", Integer.class)
                        .orElse(d.defaultPids()),
                Duration.ofSeconds(
                        c.getOptionalValue("agentbox.docker.stop-grace-seconds", Integer.class)
                                .orElse((int) d.stopGrace().toSeconds())),
                c.getOptionalValue("agentbox.docker.snapshot-repository", String.class)
                        .orElse(d.snapshotRepository()),
                c.getOptionalValue("agentbox.docker.publish-host", String.class)
                        .orElse(d.publishHost()),
                h,
                ChannelSettings.fromConfig(c));
    }

    /**
     * The images an explicit {@code image} may name: configured, or the default image, its BusyBox
     * twin and the agents image.
     */
    public ImageAllowlist allowedImages() {
        return hardening.images().orElseGet(() -> ImageAllowlist.of(image, Optional.empty()));
    }

    public DockerSettings withImage(String i) {
        return new DockerSettings(
                enabled,
                host,
                i,
                defaultMemoryMb,
                defaultCpus,
                defaultPids,
                stopGrace,
                snapshotRepository,
                publishHost,
                hardening,
                channel);
    }

    public DockerSettings withHost(String h) {
        return new DockerSettings(
                enabled,
                h,
                image,
                defaultMemoryMb,
                defaultCpus,
                defaultPids,
                stopGrace,
                snapshotRepository,
                publishHost,
                hardening,
                channel);
    }

    public DockerSettings withHardening(Hardening h) {
        return new DockerSettings(
                enabled,
                host,
                image,
                defaultMemoryMb,
                defaultCpus,
                defaultPids,
                stopGrace,
                snapshotRepository,
                publishHost,
                h,
                channel);
    }

    /** The host interface published ports bind to and URLs name. */
    public DockerSettings withPublishHost(String p) {
        return new DockerSettings(
                enabled,
                host,
                image,
                defaultMemoryMb,
                defaultCpus,
                defaultPids,
                stopGrace,
                snapshotRepository,
                p,
                hardening,
                channel);
    }

    public DockerSettings withChannel(ChannelSettings c) {
        return new DockerSettings(
                enabled,
                host,
                image,
                defaultMemoryMb,
                defaultCpus,
                defaultPids,
                stopGrace,
                snapshotRepository,
                publishHost,
                hardening,
                c);
    }
}
