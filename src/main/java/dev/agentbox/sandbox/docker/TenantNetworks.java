package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.command.CreateNetworkResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Network;
import dev.agentbox.sandbox.spi.SandboxLabels;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The per-tenant bridge networks that {@code policy.network: bridge} sandboxes join, instead of
 * Docker's default bridge (where every container reaches every other one and the host).
 *
 * <ul>
 *   <li>One network per tenant, named from a hash of the tenant within its installation ({@code
 *       agentbox-tn-<hash>}, {@link NetworkScope}), so a tenant name never has to be a valid
 *       network name and names never collide, even between two installations on one engine.
 *   <li>Inter-container traffic is off ({@code enable_icc=false}): two sandboxes of the same tenant
 *       cannot reach each other either; other tenants' networks are separated by the engine's own
 *       isolation rules between bridges.
 *   <li>The Linux bridge is named {@value #BRIDGE_PREFIX}{@code <hash>} (at most 15 chars), so one
 *       static host rule on {@code abr+} keeps every sandbox off the host's own listeners
 *       (docs/hardening.md, installed by scripts/docker-engine).
 *   <li>Created on first use and never removed by agentbox (it is cheap and shared by the tenant's
 *       sandboxes; removing it would race with a concurrent create).
 * </ul>
 */
final class TenantNetworks {

    /**
     * Lookups of a network another creator won, 100 ms apart: enough for the engine to commit it.
     */
    private static final int RACE_LOOKUPS = 20;

    private static final long RACE_LOOKUP_PAUSE_MS = 100;

    /** The Linux bridge name prefix of every tenant network; the host rule matches {@code abr+}. */
    static final String BRIDGE_PREFIX = "abr-";

    static final String NAME_PREFIX = "agentbox-tn-";
    private static final Logger LOG = Logger.getLogger(TenantNetworks.class.getName());

    private final DockerEngine engine;

    TenantNetworks(DockerEngine engine) {
        this.engine = engine;
    }

    /** 11 hex chars: {@code abr-} + 11 = 15, Linux's limit for an interface name. */
    static String hash(String scope) {
        return DockerSandboxProvider.sha256Hex("agentbox/tenant-network/v1:" + scope)
                .substring(0, 11);
    }

    /** The network of {@code scope}: a tenant within its installation ({@link NetworkScope}). */
    static String networkName(String scope) {
        return NAME_PREFIX + hash(scope);
    }

    static String bridgeName(String scope) {
        return BRIDGE_PREFIX + hash(scope);
    }

    /**
     * The id of the tenant's network, created when missing. Idempotent and safe when several
     * servers create it at once: the engine refuses a second network with the same name or the same
     * Linux bridge name, and whoever loses looks it up again instead of failing.
     */
    String ensure(String scope) {
        String name = networkName(scope);
        String existing = find(name);
        if (existing != null) {
            return existing;
        }
        try {
            CreateNetworkResponse created =
                    DockerEngine.call(
                            "network create",
                            () ->
                                    engine.client()
                                            .createNetworkCmd()
                                            .withName(name)
                                            .withDriver("bridge")
                                            .withCheckDuplicate(true)
                                            .withAttachable(false)
                                            .withLabels(
                                                    Map.of(
                                                            SandboxLabels.MANAGED,
                                                            "true",
                                                            "dev.agentbox.network",
                                                            "tenant"))
                                            .withOptions(
                                                    Map.of(
                                                            "com.docker.network.bridge.enable_icc",
                                                            "false",
                                                            "com.docker.network.bridge.name",
                                                            bridgeName(scope)))
                                            .exec());
            LOG.info("created tenant network " + name + " (bridge " + bridgeName(scope) + ")");
            return created.getId();
        } catch (DockerException e) {
            // Lost a race with another server (409 duplicate name, or 403 "conflicts with
            // network": the bridge name is taken). The winner's network may still be being
            // set up and not yet visible by name, so look a few times before calling it an error.
            String raced = findAfterRace(name);
            if (raced != null) {
                return raced;
            }
            throw e;
        }
    }

    private String findAfterRace(String name) {
        for (int attempt = 0; attempt < RACE_LOOKUPS; attempt++) {
            String found = find(name);
            if (found != null) {
                return found;
            }
            try {
                Thread.sleep(RACE_LOOKUP_PAUSE_MS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return find(name);
    }

    private String find(String name) {
        try {
            Network n =
                    DockerEngine.call(
                            "network inspect",
                            () -> engine.client().inspectNetworkCmd().withNetworkId(name).exec());
            // inspect by name also matches id prefixes; only an exact name is ours
            return name.equals(n.getName()) ? n.getId() : null;
        } catch (NotFoundException e) {
            return null;
        }
    }
}
