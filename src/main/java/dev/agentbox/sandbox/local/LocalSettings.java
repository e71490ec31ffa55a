package dev.agentbox.sandbox.local;

import java.nio.file.Path;
import org.eclipse.microprofile.config.Config;

/**
 * Configuration of the local-process provider.
 *
 * @param enabled [agentbox.providers.local.enabled] default false (trusted/dev only: commands run
 *     on the host)
 * @param root [agentbox.providers.local.root] folder holding one folder per sandbox, default {@code
 *     ${java.io.tmpdir}/agentbox-local}
 */
public record LocalSettings(boolean enabled, Path root) {

    public static LocalSettings fromConfig(Config c) {
        return new LocalSettings(
                c.getOptionalValue("agentbox.providers.local.enabled", Boolean.class).orElse(false),
                Path.of(
                        c.getOptionalValue("agentbox.providers.local.root", String.class)
                                .orElse(System.getProperty("java.io.tmpdir") + "/agentbox-local")));
    }
}
