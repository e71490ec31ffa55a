package dev.agentbox.platform.lease;

import dev.agentbox.platform.NodeIdentity;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Takes leases for this server. Every acquisition gets its own holder id (node id plus a random
 * suffix), so two threads of one server exclude each other just like two servers. While this server
 * holds a database session ({@link SessionLiveness}), every lease it takes records the session's
 * key, and is lost with it.
 */
@ApplicationScoped
public class Leases {

    private static final Duration POLL = Duration.ofMillis(100);

    @Inject LeaseStore store;

    @Inject Clock clock;

    @Inject NodeIdentity node;

    @Inject SessionLiveness liveness;

    @Resource ManagedScheduledExecutorService scheduler;

    protected Leases() {}

    /** For tests outside the server. */
    public Leases(
            LeaseStore store, Clock clock, String nodeId, ScheduledExecutorService scheduler) {
        this.store = store;
        this.clock = clock;
        this.node = null;
        this.liveness = null;
        this.nodeIdOverride = nodeId;
        this.testScheduler = scheduler;
    }

    /** For tests outside the server, with this server's database session. */
    public Leases(
            LeaseStore store,
            Clock clock,
            String nodeId,
            ScheduledExecutorService scheduler,
            SessionLiveness liveness) {
        this(store, clock, nodeId, scheduler);
        this.liveness = liveness;
    }

    private String nodeIdOverride;
    private ScheduledExecutorService testScheduler;

    /**
     * Takes {@code name}, waiting up to {@code maxWait} while another holder has it. Empty when it
     * stayed taken; the returned lease renews itself until closed.
     */
    public Optional<HeldLease> acquire(String name, Duration ttl, Duration maxWait) {
        return acquire(name, ttl, renewEvery(ttl), maxWait);
    }

    /** As {@link #acquire(String, Duration, Duration)}, renewing every {@code renewEvery}. */
    public Optional<HeldLease> acquire(
            String name, Duration ttl, Duration renewEvery, Duration maxWait) {
        String holder = newHolder();
        Instant deadline = clock.instant().plus(maxWait);
        int late = 0;
        while (true) {
            OptionalLong session = session();
            Instant at = clock.instant();
            if (tryOnce(name, holder, session, at, ttl)) {
                if (stillHeld(name, holder, at, ttl)) {
                    return Optional.of(held(name, holder, ttl, renewEvery, session));
                }
                // The take came back too late to count; the row lock it waited on is free now,
                // so one more take with the time as it is decides, whatever maxWait says.
                if (++late <= LATE_RETRIES) {
                    continue;
                }
            }
            if (!pausedBefore(deadline)) {
                return Optional.empty();
            }
        }
    }

    /** How often in a row a take that came back too late ({@link #stillHeld}) is tried again. */
    private static final int LATE_RETRIES = 2;

    /** See {@link HeldLease#stillHeld}: a take that returned too late does not count. */
    private boolean stillHeld(String name, String holder, Instant at, Duration ttl) {
        return HeldLease.stillHeld(store, clock, name, holder, at, ttl);
    }

    private static Duration renewEvery(Duration ttl) {
        return Duration.ofMillis(Math.max(50, ttl.toMillis() / 3));
    }

    /**
     * Waits one {@link #POLL} before the next try; false (no wait) once {@code deadline} has
     * passed, or when interrupted.
     */
    private boolean pausedBefore(Instant deadline) {
        if (!clock.instant().isBefore(deadline)) {
            return false;
        }
        try {
            Thread.sleep(POLL.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Takes {@code name} if {@code admit}, shown the names starting with {@code prefix} held right
     * now, agrees — deciding and taking in one transaction under the lock of {@code gate} (see
     * {@link LeaseStore#tryAcquireGated}). Empty when {@code admit} declined; an exception {@code
     * admit} throws reaches the caller as is. Waits up to {@code maxWait} while the gate is held as
     * a lease, then throws what {@code busy} supplies.
     */
    public Optional<HeldLease> acquireGated(
            String gate,
            String prefix,
            String name,
            Duration ttl,
            Duration maxWait,
            Predicate<Set<String>> admit,
            Supplier<? extends RuntimeException> busy) {
        String holder = newHolder();
        Instant deadline = clock.instant().plus(maxWait);
        int late = 0;
        while (true) {
            OptionalLong session = session();
            Instant at = clock.instant();
            LeaseStore.Gated outcome =
                    gatedOnce(gate, prefix, name, holder, session, at, ttl, admit);
            switch (outcome) {
                case TAKEN -> {
                    if (stillHeld(name, holder, at, ttl)) {
                        return Optional.of(held(name, holder, ttl, renewEvery(ttl), session));
                    }
                    // Came back too late to count: decided again, admission included, now that
                    // the lock it waited on is free.
                    if (++late > LATE_RETRIES) {
                        throw busy.get();
                    }
                }
                case DECLINED -> {
                    return Optional.empty();
                }
                case GATE_BUSY -> {
                    if (!pausedBefore(deadline)) {
                        throw busy.get();
                    }
                }
            }
        }
    }

    private LeaseStore.Gated gatedOnce(
            String gate,
            String prefix,
            String name,
            String holder,
            OptionalLong session,
            Instant at,
            Duration ttl,
            Predicate<Set<String>> admit) {
        // What admit throws is the caller's answer, not a race to retry: it passes through.
        RuntimeException[] refused = new RuntimeException[1];
        Predicate<Set<String>> watched =
                held -> {
                    try {
                        return admit.test(held);
                    } catch (RuntimeException e) {
                        refused[0] = e;
                        throw e;
                    }
                };
        try {
            return store.tryAcquireGated(gate, prefix, name, holder, session, at, ttl, watched);
        } catch (RuntimeException firstInsertRace) {
            if (refused[0] != null) {
                throw refused[0];
            }
            // Two first-ever inserts (of the gate or of the name) raced; the retry sees the row.
            return store.tryAcquireGated(gate, prefix, name, holder, session, at, ttl, watched);
        }
    }

    /**
     * Takes {@code name} at once, expired or not, if its holder session is still {@code
     * goneSession} — a session this server has seen end (see {@link ServerSession}). Empty when
     * someone took it first.
     */
    public Optional<HeldLease> takeFromGoneSession(
            String name, long goneSession, Duration ttl, Duration renewEvery) {
        String holder = newHolder();
        OptionalLong session = session();
        Instant at = clock.instant();
        if (!store.takeFromGoneSession(name, holder, session, goneSession, at, ttl)) {
            return Optional.empty();
        }
        if (stillHeld(name, holder, at, ttl)) {
            return Optional.of(held(name, holder, ttl, renewEvery, session));
        }
        // Taken too late to count (see stillHeld): ours again only if nobody took it since.
        Instant now = clock.instant();
        if (tryOnce(name, holder, session, now, ttl) && stillHeld(name, holder, now, ttl)) {
            return Optional.of(held(name, holder, ttl, renewEvery, session));
        }
        return Optional.empty();
    }

    /** See {@link LeaseStore#forgetGoneSession}. */
    public void forgetGoneSession(String name, long goneSession) {
        store.forgetGoneSession(name, goneSession);
    }

    /** The lease row of {@code name}, if it was ever taken. */
    public Optional<Lease> find(String name) {
        return store.find(name);
    }

    /** The lease rows of {@code names} that were ever taken (see {@link LeaseStore#findAll}). */
    public Map<String, Lease> findAll(Collection<String> names) {
        return names.isEmpty() ? Map.of() : store.findAll(names);
    }

    private HeldLease held(
            String name, String holder, Duration ttl, Duration renewEvery, OptionalLong session) {
        return new HeldLease(
                store, clock, name, holder, ttl, renewEvery, scheduler(), session, liveness);
    }

    private String newHolder() {
        return nodeId() + "/" + UUID.randomUUID();
    }

    private OptionalLong session() {
        return liveness == null ? OptionalLong.empty() : liveness.currentSession();
    }

    private boolean tryOnce(
            String name, String holder, OptionalLong session, Instant at, Duration ttl) {
        try {
            return store.tryAcquire(name, holder, session, at, ttl);
        } catch (RuntimeException firstInsertRace) {
            // Two first-ever acquisitions raced on the insert; the loser's retry sees the row.
            return store.tryAcquire(name, holder, session, at, ttl);
        }
    }

    /**
     * Whether anyone holds {@code name} unexpired right now (a read, for deciding whether to try).
     */
    public boolean held(String name) {
        return store.find(name).map(l -> l.heldAt(clock.instant())).orElse(false);
    }

    /** Names with {@code prefix} held unexpired right now (see {@link LeaseStore#heldNames}). */
    public Set<String> heldNames(String prefix) {
        return store.heldNames(prefix, clock.instant());
    }

    private String nodeId() {
        return nodeIdOverride != null ? nodeIdOverride : node.id();
    }

    private ScheduledExecutorService scheduler() {
        return testScheduler != null ? testScheduler : scheduler;
    }
}
