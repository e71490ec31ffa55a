package dev.agentbox.sandbox.docker;

import dev.agentbox.sandbox.spi.SandboxLabels;
import java.util.Map;
import java.util.Optional;

/**
 * What a tenant's networks and egress gateway are named after: the tenant within its installation.
 *
 * <p>Two installations (two databases, each with its own servers and configuration) may share one
 * engine, and their tenants' names may collide. Named by the tenant alone, tenant {@code alpha} of
 * one installation would share {@code alpha}'s network with the other's sandboxes and the two would
 * keep rewriting one gateway's operator files (pinned names, upstream trust) over each other. The
 * servers of one installation share them, as the design wants. A sandbox made without an
 * installation (a provider used on its own) keeps the tenant-only name.
 */
final class NetworkScope {

    private NetworkScope() {}

    /**
     * The hash input of the tenant's resources. An installation id is a UUID, so no tenant name can
     * make two scopes equal.
     */
    static String of(Optional<String> installation, String tenant) {
        return installation.map(i -> "installation:" + i + "/" + tenant).orElse(tenant);
    }

    /** The scope of the sandbox with these labels (its installation and tenant labels). */
    static String of(Map<String, String> labels) {
        return of(
                Optional.ofNullable(labels.get(SandboxLabels.INSTALLATION)),
                labels.getOrDefault(SandboxLabels.TENANT, ""));
    }
}
