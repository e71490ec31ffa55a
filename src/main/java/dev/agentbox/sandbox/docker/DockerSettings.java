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
            return builder().build();
        }

        /** A builder holding the defaults. */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder holding this hardening, to derive a changed copy. */
        public Builder toBuilder() {
            Builder b = new Builder();
            b.images = images;
            b.bridgeEnabled = bridgeEnabled;
            b.user = user;
            b.readOnlyRoot = readOnlyRoot;
            b.nofile = nofile;
            b.storageSize = storageSize;
            return b;
        }

        /** The one way to a {@link Hardening} other than the defaults, field by field. */
        public static final class Builder {
            private Optional<ImageAllowlist> images = Optional.empty();
            private boolean bridgeEnabled = true;
            private Optional<String> user = Optional.empty();
            private boolean readOnlyRoot;
            private long nofile = 8192;
            private Optional<String> storageSize = Optional.empty();

            private Builder() {}

            public Builder images(ImageAllowlist list) {
                this.images = Optional.of(list);
                return this;
            }

            public Builder bridgeEnabled(boolean enabled) {
                this.bridgeEnabled = enabled;
                return this;
            }

            public Builder user(String user) {
                this.user = Optional.of(user);
                return this;
            }

            public Builder readOnlyRoot(boolean readOnly) {
                this.readOnlyRoot = readOnly;
                return this;
            }

            public Builder nofile(long limit) {
                this.nofile = limit;
                return this;
            }

            public Builder storageSize(String size) {
                this.storageSize = Optional.of(size);
                return this;
            }

            public Hardening build() {
                return new Hardening(
                        images, bridgeEnabled, user, readOnlyRoot, nofile, storageSize);
            }
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
        return builder().build();
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    public static DockerSettings fromConfig(Config c) {
        Hardening.Builder h = Hardening.builder();
        c.getOptionalValue(ImageAllowlist.KEY, String.class)
                .ifPresent(v -> h.images(ImageAllowlist.fromConfig(c)));
        c.getOptionalValue("agentbox.docker.bridge-enabled", Boolean.class)
                .ifPresent(h::bridgeEnabled);
        c.getOptionalValue("agentbox.docker.user", String.class)
                .filter(u -> !u.isBlank())
                .ifPresent(h::user);
        c.getOptionalValue("agentbox.docker.read-only-root", Boolean.class)
                .ifPresent(h::readOnlyRoot);
        c.getOptionalValue("agentbox.docker.nofile", Long.class).ifPresent(h::nofile);
        c.getOptionalValue("agentbox.docker.storage-size", String.class)
                .filter(s -> !s.isBlank())
                .ifPresent(h::storageSize);
        Builder b = builder().hardening(h.build()).channel(ChannelSettings.fromConfig(c));
        c.getOptionalValue("agentbox.providers.docker.enabled", Boolean.class)
                .ifPresent(b::enabled);
        c.getOptionalValue("agentbox.docker.host", String.class).ifPresent(b::host);
        c.getOptionalValue("agentbox.docker.image", String.class).ifPresent(b::image);
        c.getOptionalValue("agentbox.docker.default-memory-mb", Integer.class)
                .ifPresent(b::defaultMemoryMb);
        c.getOptionalValue("agentbox.docker.default-cpus", Double.class).ifPresent(b::defaultCpus);
        c.getOptionalValue("agentbox.docker.default-pids", Integer.class).ifPresent(b::defaultPids);
        c.getOptionalValue("agentbox.docker.stop-grace-seconds", Integer.class)
                .ifPresent(seconds -> b.stopGrace(Duration.ofSeconds(seconds)));
        c.getOptionalValue("agentbox.docker.snapshot-repository", String.class)
                .ifPresent(b::snapshotRepository);
        c.getOptionalValue("agentbox.docker.publish-host", String.class).ifPresent(b::publishHost);
        return b.build();
    }

    /**
     * The images an explicit {@code image} may name: configured, or the default image, its BusyBox
     * twin and the agents image.
     */
    public ImageAllowlist allowedImages() {
        return hardening.images().orElseGet(() -> ImageAllowlist.of(image, Optional.empty()));
    }

    /** A builder holding these settings, to derive a changed copy. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.host = host;
        b.image = image;
        b.defaultMemoryMb = defaultMemoryMb;
        b.defaultCpus = defaultCpus;
        b.defaultPids = defaultPids;
        b.stopGrace = stopGrace;
        b.snapshotRepository = snapshotRepository;
        b.publishHost = publishHost;
        b.hardening = hardening;
        b.channel = channel;
        return b;
    }

    /**
     * The one way to settings other than the defaults, field by field (the defaults are the ones
     * named in the class comment).
     */
    public static final class Builder {
        private boolean enabled = true;
        private String host = "unix:///var/run/docker.sock";
        private String image = "agentbox/sandbox:bookworm";
        private int defaultMemoryMb = 2048;
        private double defaultCpus = 1.0;
        private int defaultPids = 512;
        private Duration stopGrace = Duration.ofSeconds(2);
        private String snapshotRepository = "agentbox/snapshot";
        private String publishHost = "127.0.0.1";
        private Hardening hardening = Hardening.defaults();
        private ChannelSettings channel = ChannelSettings.defaults();

        private Builder() {}

        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder image(String image) {
            this.image = image;
            return this;
        }

        public Builder defaultMemoryMb(int mb) {
            this.defaultMemoryMb = mb;
            return this;
        }

        public Builder defaultCpus(double cpus) {
            this.defaultCpus = cpus;
            return this;
        }

        public Builder defaultPids(int pids) {
            this.defaultPids = pids;
            return this;
        }

        public Builder stopGrace(Duration grace) {
            this.stopGrace = grace;
            return this;
        }

        public Builder snapshotRepository(String repository) {
            this.snapshotRepository = repository;
            return this;
        }

        /** The host interface published ports bind to and URLs name. */
        public Builder publishHost(String publishHost) {
            this.publishHost = publishHost;
            return this;
        }

        public Builder hardening(Hardening hardening) {
            this.hardening = hardening;
            return this;
        }

        public Builder channel(ChannelSettings channel) {
            this.channel = channel;
            return this;
        }

        public DockerSettings build() {
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
                    channel);
        }
    }
}
