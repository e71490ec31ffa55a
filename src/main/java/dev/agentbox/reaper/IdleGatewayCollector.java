package dev.agentbox.reaper;

import dev.agentbox.sandbox.spi.SandboxProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Asks every enabled provider to reclaim this installation's idle egress gateways ({@code
 * agentbox.egress.gateway-idle-ms}; {@link SandboxProvider#reclaimIdleGateways}), once per sweep,
 * on any server. The provider decides what is idle and keeps a concurrent ensure safe; this only
 * bounds what it may touch to the installation's own.
 */
public final class IdleGatewayCollector {

    private static final Logger LOG = Logger.getLogger(IdleGatewayCollector.class.getName());

    private final Supplier<List<SandboxProvider>> providers;
    private final Supplier<Optional<String>> installation;
    private final Duration idle;

    public IdleGatewayCollector(
            Supplier<List<SandboxProvider>> providers,
            Supplier<Optional<String>> installation,
            Duration idle) {
        if (idle.isNegative()) {
            throw new IllegalArgumentException(
                    "agentbox.egress.gateway-idle-ms must not be negative: " + idle.toMillis());
        }
        this.providers = providers;
        this.installation = installation;
        this.idle = idle;
    }

    /** The gateways reclaimed, as {@code provider:name}. Never throws. */
    public List<String> collect() {
        Optional<String> ours;
        try {
            ours = installation.get();
        } catch (RuntimeException e) {
            ours = Optional.empty();
        }
        if (ours.isEmpty()) {
            return List.of(); // without the installation id nothing can be proven ours
        }
        List<String> reclaimed = new ArrayList<>();
        for (SandboxProvider provider : providers.get()) {
            try {
                for (String gateway : provider.reclaimIdleGateways(ours.get(), idle)) {
                    reclaimed.add(provider.name() + ":" + gateway);
                }
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "reaper: reclaiming idle egress gateways of " + provider.name() + " failed",
                        e);
            }
        }
        if (!reclaimed.isEmpty()) {
            LOG.info(
                    "reaper: "
                            + reclaimed.size()
                            + " idle egress gateway(s) reclaimed with their networks: "
                            + reclaimed);
        }
        return reclaimed;
    }
}
