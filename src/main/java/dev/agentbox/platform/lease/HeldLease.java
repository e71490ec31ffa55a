package dev.agentbox.platform.lease;

import dev.agentbox.platform.LogText;
import java.time.Clock;
import java.time.Duration;
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

    private void renew() {
        if (closed || lost()) {
            return;
        }
        try {
            if (!store.renew(name, holder, clock.instant(), ttl)) {
                lost = true;
                LOG.warning("Lease " + LogText.quote(name) + " was lost by " + holder);
            }
        } catch (RuntimeException e) {
            // A database hiccup: the lease may still be ours; the next renewal decides,
            // and expiry protects everyone else meanwhile.
            LOG.log(Level.WARNING, "Renewing lease " + LogText.quote(name) + " failed: " + e);
        }
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
