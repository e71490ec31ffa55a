package dev.agentbox.sandbox.pool;

import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.PooledSandbox;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The warm pool's upkeep, run by a timer on every server: {@link #refill} tops each entry up,
 * {@link #tidy} retires what is too old or no longer configured and settles claims a dead server
 * left, {@link #drain} destroys this server's ready sandboxes when it stops. The hand-out is {@link
 * WarmPool}'s.
 *
 * <p>Invariants (with {@link WarmPool}'s): a row is written only after its sandbox exists, so a
 * crash in between leaves an unrecorded sandbox for the orphan collector, never a row without a
 * sandbox; a sandbox is destroyed here only after this server won the row's compare-and-set (a
 * claim {@code retired:} or {@code gone:}), so an ensure never loses a sandbox it just claimed; one
 * server at a time refills an entry (a lease named after it); every failure is logged and left for
 * the next pass.
 */
public final class PoolUpkeep {

    private static final Logger LOG = Logger.getLogger(PoolUpkeep.class.getName());

    /** A refill holds the pool's lease for at most this long without renewing it. */
    private static final Duration REFILL_LEASE = Duration.ofSeconds(60);

    private final Function<String, Optional<SandboxProvider>> providers;
    private final PoolStore store;
    private final SandboxInstanceStore instances;
    private final Leases leases;
    private final Clock clock;
    private final String node;
    private final Supplier<Optional<String>> installation;
    private final PoolSettings settings;
    private final PoolMetrics metrics;

    public PoolUpkeep(
            Function<String, Optional<SandboxProvider>> providers,
            PoolStore store,
            SandboxInstanceStore instances,
            Leases leases,
            Clock clock,
            String node,
            Supplier<Optional<String>> installation,
            PoolSettings settings,
            PoolMetrics metrics) {
        this.providers = providers;
        this.store = store;
        this.instances = instances;
        this.leases = leases;
        this.clock = clock;
        this.node = node;
        this.installation = installation;
        this.settings = settings;
        this.metrics = metrics;
    }

    /**
     * Tops every entry up to {@link PoolSettings#size()} ready sandboxes, one server at a time per
     * entry (a lease named after the entry), so two servers do not both fill the same gap. Returns
     * how many sandboxes were made.
     */
    public int refill() {
        if (!settings.enabled()) {
            return 0;
        }
        int made = 0;
        for (PoolEntry entry : settings.entries()) {
            made += refill(entry);
        }
        return made;
    }

    private int refill(PoolEntry entry) {
        Optional<SandboxProvider> provider = providers.apply(entry.provider());
        if (provider.isEmpty() || !provider.get().available()) {
            return 0;
        }
        Optional<HeldLease> lease;
        try {
            lease = leases.acquire(LeaseNames.pool(entry.key()), REFILL_LEASE, Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "pool " + entry + ": lease", e);
            return 0;
        }
        if (lease.isEmpty()) {
            return 0; // another server is refilling this entry
        }
        int made = 0;
        try (HeldLease held = lease.get()) {
            long ready = store.countReady(entry.key(), clock.instant().minus(settings.maxAge()));
            metrics.ready(entry, ready);
            for (long i = ready; i < settings.size() && !held.lost(); i++) {
                make(provider.get(), entry);
                made++;
                metrics.ready(entry, i + 1);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool " + entry + ": refill stopped: " + e.getMessage(), e);
        }
        if (made > 0) {
            LOG.info("pool " + entry + ": made " + made + " ready sandbox(es)");
        }
        return made;
    }

    private void make(SandboxProvider provider, PoolEntry entry) {
        long t0 = System.nanoTime();
        SandboxCreateInput input =
                SandboxCreateInput.defaults()
                        .withRequestedId(
                                "ab-pool-"
                                        + UUID.randomUUID()
                                                .toString()
                                                .replace("-", "")
                                                .substring(0, 16))
                        .withPolicy(entry.policy())
                        .withPool(entry.key());
        // The default image is asked for as an ensure without an image asks for it.
        if (!entry.image().equals(settings.defaultImage())) {
            input = input.withImage(entry.image());
        }
        Optional<String> inst = installation.get();
        if (inst.isPresent()) {
            input = input.withInstallation(inst.get());
        }
        SandboxHandle made = provider.create(input);
        try {
            store.add(
                    new PooledSandbox(
                            made.id(), provider.name(), entry.key(), clock.instant(), node));
        } catch (RuntimeException e) {
            destroy(provider, made.id());
            throw e;
        }
        metrics.made(entry, Duration.ofNanos(System.nanoTime() - t0));
    }

    /**
     * Retires ready sandboxes past their maximum age or of an entry this server does not configure
     * (the entries changed: servers of one installation share one configuration), and settles
     * claims left unfinished: a claimed sandbox that got recorded only loses its row; one that did
     * not, whose claim is older than the grace and whose key no ensure holds, is destroyed. Returns
     * how many sandboxes were destroyed.
     */
    public int tidy() {
        // Entries count with the pool switched off too (size 0): their sandboxes then retire by
        // age, so servers of one database that differ only in size do not retire each other's.
        Set<String> configured =
                settings.entries().stream().map(PoolEntry::key).collect(Collectors.toSet());
        int destroyed = 0;
        Instant now = clock.instant();
        List<PooledSandbox> rows;
        try {
            rows = store.all(1000);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool: listing failed", e);
            return 0;
        }
        Map<String, Optional<Set<String>>> present = new HashMap<>();
        Instant listedAt = clock.instant();
        for (PooledSandbox row : rows) {
            try {
                if (row.state() == PooledSandbox.State.READY
                        && goneBehindOurBack(row, listedAt, present)) {
                    continue;
                }
                if (row.state() == PooledSandbox.State.READY) {
                    boolean known = configured.contains(row.poolKey());
                    boolean old = row.createdAt().plus(settings.maxAge()).isBefore(now);
                    if ((old || !known)
                            && store.claim(row.providerSandboxId(), "retired:" + node, now)) {
                        destroyed +=
                                retire(
                                        row,
                                        known
                                                ? "older than " + settings.maxAge()
                                                : "its pool is no longer configured");
                    }
                    continue;
                }
                if (row.claimedAt().orElse(now).plus(settings.claimGrace()).isAfter(now)) {
                    continue; // a claim in progress
                }
                if (instances.existsForProviderSandbox(row.provider(), row.providerSandboxId())) {
                    store.remove(row.providerSandboxId()); // recorded; only the row was left
                    continue;
                }
                String key = row.claimedFor().orElse("");
                if (!key.startsWith("retired:") && leases.held(LeaseNames.sandbox(key))) {
                    continue; // its ensure is still running (a long bootstrap)
                }
                destroyed += retire(row, "claim unfinished since " + row.claimedAt().orElse(now));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "pool: tidying " + row.providerSandboxId() + " failed", e);
            }
        }
        return destroyed;
    }

    /**
     * Whether a ready row's sandbox was removed by someone else (an operator's {@code docker rm}, a
     * crashed engine): such a row is dropped, or it would count as ready and the pool would never
     * be refilled. Judged against one listing per provider and pass, taken after {@code listedAt};
     * a row is written only after its sandbox exists, so a row made before the listing names a
     * sandbox the listing must show.
     */
    private boolean goneBehindOurBack(
            PooledSandbox row, Instant listedAt, Map<String, Optional<Set<String>>> present) {
        if (row.createdAt().isAfter(listedAt)) {
            return false;
        }
        Optional<Set<String>> ids =
                present.computeIfAbsent(
                        row.provider(),
                        name -> {
                            try {
                                return providers
                                        .apply(name)
                                        .map(
                                                p ->
                                                        p.listManaged().stream()
                                                                .map(ManagedSandbox::id)
                                                                .collect(Collectors.toSet()));
                            } catch (RuntimeException e) {
                                LOG.log(Level.FINE, "pool: listing " + name, e);
                                return Optional.empty(); // unknown: judge nothing this pass
                            }
                        });
        if (ids.isEmpty() || ids.get().contains(row.providerSandboxId())) {
            return false;
        }
        if (store.claim(row.providerSandboxId(), "gone:" + node, clock.instant())) {
            store.remove(row.providerSandboxId());
            LOG.info(
                    "pool: "
                            + row.providerSandboxId()
                            + " was removed outside agentbox; forgotten");
        }
        return true;
    }

    private int retire(PooledSandbox row, String why) {
        Optional<SandboxProvider> p = providers.apply(row.provider());
        if (p.isEmpty()) {
            return 0;
        }
        LOG.info("pool: destroying " + row.providerSandboxId() + " (" + why + ")");
        return destroy(p.get(), row.providerSandboxId()) ? 1 : 0;
    }

    /**
     * Destroys the ready sandboxes this server made (a server stopping): claimed first, so none is
     * destroyed under an ensure that just took it. Sandboxes of a server killed outright stay ready
     * for the others, and are retired by age like any.
     */
    public int drain() {
        int destroyed = 0;
        Instant now = clock.instant();
        for (PooledSandbox row : store.all(1000)) {
            if (row.state() == PooledSandbox.State.READY
                    && node.equals(row.createdBy())
                    && store.claim(row.providerSandboxId(), "retired:" + node, now)) {
                destroyed += retire(row, "server stopping");
            }
        }
        return destroyed;
    }

    private boolean destroy(SandboxProvider provider, String id) {
        return destroy(store, provider, id);
    }

    /** Destroys the sandbox, then forgets its row; false when the destroy failed (row kept). */
    static boolean destroy(PoolStore store, SandboxProvider provider, String id) {
        try {
            provider.destroy(id);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool: destroying " + id + " failed; tidy retries", e);
            return false;
        }
        try {
            store.remove(id);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool: dropping the row of " + id + " failed", e);
        }
        return true;
    }
}
