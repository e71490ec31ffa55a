package dev.agentbox.sandbox.pool;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.platform.lease.JpaLeaseStore;
import dev.agentbox.platform.lease.LeaseStore;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.JpaPoolStore;
import dev.agentbox.sandbox.store.JpaSandboxInstanceStore;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.PooledSandbox;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * The warm pool's real parts for a test class, over any provider: the pool and instance stores and
 * the leases on Derby, and {@link #pool} for one server's hand-out and upkeep. Opened once per
 * class ({@link #open}), {@link #clear}ed before each test; the leases keep the real clock while
 * each pool takes the test's.
 */
final class PoolFixture implements AutoCloseable {

    /** The node whose leases the upkeep holds; pools of other nodes share them. */
    static final String LEASE_NODE = "node-a";

    private final TestDatabase db;
    private final ScheduledExecutorService scheduler;
    final PoolStore store;
    final SandboxInstanceStore instances;
    final Leases leases;

    private PoolFixture(TestDatabase db, ScheduledExecutorService scheduler) {
        this.db = db;
        this.scheduler = scheduler;
        this.store = db.transactional(PoolStore.class, JpaPoolStore::new);
        this.instances =
                db.transactional(
                        SandboxInstanceStore.class,
                        em -> new JpaSandboxInstanceStore(em, db.dataSource()));
        this.leases =
                new Leases(
                        db.transactional(LeaseStore.class, JpaLeaseStore::new),
                        Clock.systemUTC(),
                        LEASE_NODE,
                        scheduler);
    }

    static PoolFixture open() {
        return new PoolFixture(
                TestDatabase.open(TestDatabase.Kind.DERBY), Executors.newScheduledThreadPool(2));
    }

    /** Forgets every pooled sandbox and instance row of the test before. */
    void clear() {
        db.clear(PooledSandbox.class, SandboxInstance.class);
    }

    /**
     * One server's pool of {@code size} sandboxes of {@code entry} over {@code provider} (the only
     * provider it knows), run by {@code node} of installation {@code installation} on {@code
     * clock}: 30 min maximum age, 5 s claim hold, no refill pause, 1 min lease.
     */
    Pool pool(
            SandboxProvider provider,
            PoolEntry entry,
            Clock clock,
            String node,
            int size,
            String installation) {
        PoolSettings settings =
                new PoolSettings(
                        size,
                        List.of(entry),
                        Duration.ofMinutes(30),
                        Duration.ofSeconds(5),
                        Duration.ZERO,
                        Duration.ofMinutes(1),
                        entry.image());
        Function<String, Optional<SandboxProvider>> providers =
                name -> name.equals(provider.name()) ? Optional.of(provider) : Optional.empty();
        PoolMetrics metrics = new PoolMetrics(null);
        return new Pool(
                new WarmPool(providers, store, clock, settings, metrics),
                new PoolUpkeep(
                        providers,
                        store,
                        instances,
                        leases,
                        clock,
                        node,
                        () -> Optional.of(installation),
                        settings,
                        metrics));
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        db.close();
    }

    /** One server's pool: its hand-out and its upkeep, over the shared store. */
    record Pool(WarmPool handOut, PoolUpkeep upkeep) {
        Optional<PoolEntry> entryFor(String provider, Optional<String> image, SandboxPolicy p) {
            return handOut.entryFor(provider, image, p);
        }

        Optional<WarmPool.Claim> claim(PoolEntry entry, String key) {
            return handOut.claim(entry, key);
        }

        void claimed(WarmPool.Claim claim) {
            handOut.claimed(claim);
        }

        void abandon(WarmPool.Claim claim) {
            handOut.abandon(claim);
        }

        int refill() {
            return upkeep.refill();
        }

        int tidy() {
            return upkeep.tidy();
        }

        int drain() {
            return upkeep.drain();
        }
    }
}
