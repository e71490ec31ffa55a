package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.ImageAllowlist;
import org.eclipse.microprofile.config.Config;

/**
 * What this server accepts in an ensure body beyond its syntax: the image allowlist, the resource
 * ceilings, whether {@code policy.network: bridge} exists at all ({@code
 * agentbox.docker.bridge-enabled}), and the limits of {@code policy.egress}. Checked by {@link
 * SandboxSpecParser}, so a refused body never reaches the key, the lease or the provider.
 */
record EnsureRules(
        ImageAllowlist images,
        ResourceCeilings ceilings,
        boolean bridgeEnabled,
        EgressLimits egress) {

    /** Rules with the default egress limits. */
    EnsureRules(ImageAllowlist images, ResourceCeilings ceilings, boolean bridgeEnabled) {
        this(images, ceilings, bridgeEnabled, EgressLimits.defaults());
    }

    public static EnsureRules defaults() {
        return new EnsureRules(ImageAllowlist.defaults(), ResourceCeilings.defaults(), true);
    }

    public static EnsureRules fromConfig(Config c) {
        return new EnsureRules(
                ImageAllowlist.fromConfig(c),
                ResourceCeilings.fromConfig(c),
                c.getOptionalValue("agentbox.docker.bridge-enabled", Boolean.class).orElse(true),
                EgressLimits.fromConfig(c));
    }
}
