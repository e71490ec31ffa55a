package dev.agentbox.reaper;

import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Finds sandboxes no record points at — their record was lost (a crash between create and record, a
 * deleted row, a failed reclaim's retry) — by listing each provider by the {@link
 * SandboxLabels#MANAGED} label, and destroys them.
 *
 * <p>A sandbox is an orphan only if all hold: it carries this installation's {@link
 * SandboxLabels#INSTALLATION} label (another installation sharing the engine owns its own), no
 * instance record of its provider names it, it is older than the grace (an ensure records its
 * sandbox only after bootstrap, which can take minutes), and no ensure holds its key's lease right
 * now. A sandbox the warm pool records (ready, or claimed and not yet recorded) is the pool's to
 * retire, not an orphan.
 */
public final class OrphanCollector {

    private static final Logger LOG = Logger.getLogger(OrphanCollector.class.getName());

    /** Destroyed and failed sandboxes as {@code provider:id}. */
    public record Report(List<String> destroyed, List<String> failed) {
        public Report {
            destroyed = List.copyOf(destroyed);
            failed = List.copyOf(failed);
        }

        public static Report empty() {
            return new Report(List.of(), List.of());
        }
    }

    private final SandboxInstanceStore instances;
    private final Supplier<List<SandboxProvider>> providers;
    private final Leases leases;
    private final Clock clock;
    private final Duration grace;
    private final Supplier<Optional<String>> installation;
    private BiPredicate<String, String> pooled = (provider, id) -> false;

    public OrphanCollector(
            SandboxInstanceStore instances,
            Supplier<List<SandboxProvider>> providers,
            Leases leases,
            Clock clock,
            Duration grace,
            Supplier<Optional<String>> installation) {
        this.instances = instances;
        this.providers = providers;
        this.leases = leases;
        this.clock = clock;
        this.grace = grace;
        this.installation = installation;
    }

    /**
     * Leaves alone the sandboxes for which {@code pooled} (provider, id) is true: the warm pool's
     * rows.
     */
    public OrphanCollector withPool(BiPredicate<String, String> pooled) {
        this.pooled = pooled;
        return this;
    }

    /** One pass over every enabled provider. Never throws. */
    public Report collect() {
        List<String> destroyed = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        Optional<String> ours;
        try {
            ours = installation.get();
        } catch (RuntimeException e) {
            ours = Optional.empty();
        }
        if (ours.isEmpty()) {
            return Report.empty(); // without the installation id nothing can be proven ours
        }
        Instant cutoff = clock.instant().minus(grace);
        for (SandboxProvider provider : providers.get()) {
            List<ManagedSandbox> listed;
            try {
                listed = provider.listManaged();
            } catch (RuntimeException e) {
                LOG.warning("orphans: listing provider " + provider.name() + " failed: " + e);
                failed.add(provider.name() + ":*");
                continue;
            }
            for (ManagedSandbox s : listed) {
                if (!ours.get().equals(s.labels().get(SandboxLabels.INSTALLATION))
                        || s.createdAt().isAfter(cutoff)) {
                    continue;
                }
                String name = provider.name() + ":" + s.id();
                try {
                    if (instances.existsForProviderSandbox(provider.name(), s.id())
                            || pooled.test(provider.name(), s.id())) {
                        continue;
                    }
                    String key = s.labels().get(SandboxLabels.KEY);
                    if (key != null && leases.held(LeaseNames.sandbox(key))) {
                        continue;
                    }
                    provider.destroy(s.id());
                    destroyed.add(name);
                    LOG.info(
                            "orphans: destroyed "
                                    + name
                                    + " (created "
                                    + s.createdAt()
                                    + ", no record)");
                } catch (RuntimeException e) {
                    failed.add(name);
                    LOG.log(Level.SEVERE, "orphans: could not destroy " + name, e);
                }
            }
        }
        return new Report(destroyed, failed);
    }
}
