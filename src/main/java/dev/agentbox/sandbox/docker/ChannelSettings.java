package dev.agentbox.sandbox.docker;

import java.nio.file.Path;
import org.eclipse.microprofile.config.Config;

/**
 * Configuration of the sandbox channel (docs/sandbox-channel.md; MicroProfile Config keys in
 * brackets).
 *
 * @param enabled [agentbox.docker.channel.enabled] default true: containers of images that carry
 *     the helper get a channel; false = every command through {@code docker exec}
 * @param dir [agentbox.docker.channel.dir] host folder of the per-sandbox socket folders, default
 *     {@code <java.io.tmpdir>/agentbox-channel}; it must be on the engine's host (a local engine),
 *     owned by the server, and is kept at mode 0700
 */
public record ChannelSettings(boolean enabled, Path dir) {

    public static ChannelSettings defaults() {
        return new ChannelSettings(
                true, Path.of(System.getProperty("java.io.tmpdir"), "agentbox-channel"));
    }

    public static ChannelSettings disabled() {
        return new ChannelSettings(false, defaults().dir());
    }

    static ChannelSettings fromConfig(Config c) {
        ChannelSettings d = defaults();
        return new ChannelSettings(
                c.getOptionalValue("agentbox.docker.channel.enabled", Boolean.class)
                        .orElse(d.enabled()),
                c.getOptionalValue("agentbox.docker.channel.dir", String.class)
                        .filter(s -> !s.isBlank())
                        .map(Path::of)
                        .orElse(d.dir()));
    }
}
