package dev.agentbox.sandbox.docker;

import java.time.Duration;
import org.eclipse.microprofile.config.Config;

/**
 * Configuration of the Docker provider (MicroProfile Config keys in brackets).
 *
 * @param enabled          [agentbox.providers.docker.enabled] default true
 * @param host             [agentbox.docker.host] engine endpoint, default unix:///var/run/docker.sock
 * @param image            [agentbox.docker.image] default image, default agentbox/sandbox:bookworm
 * @param defaultMemoryMb  [agentbox.docker.default-memory-mb] memory (and memory+swap) limit, default 2048
 * @param defaultCpus      [agentbox.docker.default-cpus] CPU quota in cores, default 1.0
 * @param defaultPids      [agentbox.docker.default-pids] pids limit, default 512
 * @param stopGrace        [agentbox.docker.stop-grace-seconds] grace before SIGKILL on destroy, default 2
 * @param snapshotRepository [agentbox.docker.snapshot-repository] repository of snapshot images, default agentbox/snapshot
 * @param publishHost      [agentbox.docker.publish-host] host interface published ports bind to and URLs name, default 127.0.0.1
 */
public record DockerSettings(boolean enabled, String host, String image, int defaultMemoryMb, double defaultCpus,
                             int defaultPids, Duration stopGrace, String snapshotRepository, String publishHost) {

    public static DockerSettings defaults() {
        return new DockerSettings(true, "unix:///var/run/docker.sock", "agentbox/sandbox:bookworm", 2048, 1.0, 512,
                Duration.ofSeconds(2), "agentbox/snapshot", "127.0.0.1");
    }

    public static DockerSettings fromConfig(Config c) {
        DockerSettings d = defaults();
        return new DockerSettings(
                c.getOptionalValue("agentbox.providers.docker.enabled", Boolean.class).orElse(d.enabled()),
                c.getOptionalValue("agentbox.docker.host", String.class).orElse(d.host()),
                c.getOptionalValue("agentbox.docker.image", String.class).orElse(d.image()),
                c.getOptionalValue("agentbox.docker.default-memory-mb", Integer.class).orElse(d.defaultMemoryMb()),
                c.getOptionalValue("agentbox.docker.default-cpus", Double.class).orElse(d.defaultCpus()),
                c.getOptionalValue("agentbox.docker.default-pids", Integer.class).orElse(d.defaultPids()),
                Duration.ofSeconds(c.getOptionalValue("agentbox.docker.stop-grace-seconds", Integer.class)
                        .orElse((int) d.stopGrace().toSeconds())),
                c.getOptionalValue("agentbox.docker.snapshot-repository", String.class).orElse(d.snapshotRepository()),
                c.getOptionalValue("agentbox.docker.publish-host", String.class).orElse(d.publishHost()));
    }

    public DockerSettings withImage(String i) {
        return new DockerSettings(enabled, host, i, defaultMemoryMb, defaultCpus, defaultPids, stopGrace, snapshotRepository, publishHost);
    }

    public DockerSettings withHost(String h) {
        return new DockerSettings(enabled, h, image, defaultMemoryMb, defaultCpus, defaultPids, stopGrace, snapshotRepository, publishHost);
    }
}
