package dev.agentbox.platform.lease;

import dev.agentbox.platform.LogText;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A lease this server holds, renewed in the background (by default every third of its TTL) until
 * closed. If a renewal fails the lease is {@link #lost()}: the holder must stop the guarded work,
 * because another server may take the lease once it expires. A lease taken under a server session
 * ({@link ServerSession}) is lost as well the moment this server knows that session broke: other
 * servers may take it at once.
 */
public final class HeldLease implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(HeldLease.class.getName());

    private final LeaseStore store;
    private final Clock clock;
    private final String name;
    private final String holder;
    private final Duration ttl;
    private final OptionalLong session;
    private final SessionLiveness liveness;
    private final ScheduledFuture<?> renewal;
    private volatile boolean lost;
    private volatile boolean closed;

    HeldLease(
            LeaseStore store,
            Clock clock,
            String name,
            String holder,
            Duration ttl,
            Duration renewEvery,
            ScheduledExecutorService scheduler,
            OptionalLong session,
            SessionLiveness liveness) {
        this.store = store;
        this.session = session;
        this.liveness = liveness;
        this.clock = clock;
        this.name = name;
        this.holder = holder;
        this.ttl = ttl;
        long every = Math.max(50, renewEvery.toMillis());
        this.renewal =
                scheduler.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
    }

    /** One renewal: the scheduler runs it every {@code renewEvery}; tests call it directly. */
    void renew() {
        if (closed || lost()) {
            return;
        }
        try {
            Instant at = clock.instant();
            if (!store.renew(name, holder, at, ttl)
                    || !stillHeld(store, clock, name, holder, at, ttl)) {
                lost = true;
                LOG.warning("Lease " + LogText.quote(name) + " was lost by " + holder);
            }
        } catch (RuntimeException e) {
            // A database hiccup: the lease may still be ours; the next renewal decides,
            // and expiry protects everyone else meanwhile.
            LOG.log(Level.WARNING, "Renewing lease " + LogText.quote(name) + " failed: " + e);
        }
    }

    /**
     * Whether the lease {@code holder} wrote with the instant {@code at} (so to expire at {@code at
     * + ttl}) still holds now. A take or renewal can return long after {@code at}: on PostgreSQL
     * its statement waits on the row lock of any transaction open on that row, and a server frozen
     * mid-transaction (SIGSTOP, a stalled VM) holds its lock until the database ends its session.
     * What it wrote may have run out before it returned — and another server, whose statement
     * waited on the same lock with a later instant, may have taken it since. So a write that used
     * up a third of the ttl is renewed from now before it counts, and does not count when that
     * renewal fails.
     */
    static boolean stillHeld(
            LeaseStore store, Clock clock, String name, String holder, Instant at, Duration ttl) {
        Instant now = clock.instant();
        if (now.isBefore(at.plus(ttl.dividedBy(3)))) {
            return true;
        }
        return store.renew(name, holder, now, ttl);
    }

    public String name() {
        return name;
    }

    public boolean lost() {
        return lost
                || (session.isPresent()
                        && liveness != null
                        && !liveness.holds(session.getAsLong()));
    }

    /** Stops renewing and gives the lease up, so a waiter gets it at once. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        renewal.cancel(false);
        try {
            store.release(name, holder, clock.instant());
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "Releasing lease "
                            + LogText.quote(name)
                            + " failed (it expires by itself): "
                            + e);
        }
    }
}
