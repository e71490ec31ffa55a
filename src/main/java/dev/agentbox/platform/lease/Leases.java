package dev.agentbox.platform.lease;

import dev.agentbox.platform.NodeIdentity;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Takes leases for this server. Every acquisition gets its own holder id (node id plus a random
 * suffix), so two threads of one server exclude each other just like two servers.
 */
@ApplicationScoped
public class Leases {

    private static final Duration POLL = Duration.ofMillis(100);

    @Inject LeaseStore store;

    @Inject Clock clock;

    @Inject NodeIdentity node;

    @Resource ManagedScheduledExecutorService scheduler;

    protected Leases() {}

    /** For tests outside the server. */
    public Leases(
            LeaseStore store, Clock clock, String nodeId, ScheduledExecutorService scheduler) {
        this.store = store;
        this.clock = clock;
        this.node = null;
        this.nodeIdOverride = nodeId;
        this.testScheduler = scheduler;
    }

    private String nodeIdOverride;
    private ScheduledExecutorService testScheduler;

    /**
     * Takes {@code name}, waiting up to {@code maxWait} while another holder has it. Empty when it
     * stayed taken; the returned lease renews itself until closed.
     */
    public Optional<HeldLease> acquire(String name, Duration ttl, Duration maxWait) {
        return acquire(name, ttl, Duration.ofMillis(Math.max(50, ttl.toMillis() / 3)), maxWait);
    }

    /** As {@link #acquire(String, Duration, Duration)}, renewing every {@code renewEvery}. */
    public Optional<HeldLease> acquire(
            String name, Duration ttl, Duration renewEvery, Duration maxWait) {
        String holder = nodeId() + "/" + UUID.randomUUID();
        Instant deadline = clock.instant().plus(maxWait);
        while (true) {
            if (tryOnce(name, holder, ttl)) {
                return Optional.of(
                        new HeldLease(store, clock, name, holder, ttl, renewEvery, scheduler()));
            }
            if (!clock.instant().isBefore(deadline)) {
                return Optional.empty();
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    private boolean tryOnce(String name, String holder, Duration ttl) {
        try {
            return store.tryAcquire(name, holder, clock.instant(), ttl);
        } catch (RuntimeException firstInsertRace) {
            // Two first-ever acquisitions raced on the insert; the loser's retry sees the row.
            return store.tryAcquire(name, holder, clock.instant(), ttl);
        }
    }

    /**
     * Whether anyone holds {@code name} unexpired right now (a read, for deciding whether to try).
     */
    public boolean held(String name) {
        return store.find(name).map(l -> l.heldAt(clock.instant())).orElse(false);
    }

    /** Names with {@code prefix} held unexpired right now (see {@link LeaseStore#heldNames}). */
    public java.util.Set<String> heldNames(String prefix) {
        return store.heldNames(prefix, clock.instant());
    }

    private String nodeId() {
        return nodeIdOverride != null ? nodeIdOverride : node.id();
    }

    private ScheduledExecutorService scheduler() {
        return testScheduler != null ? testScheduler : scheduler;
    }
}
