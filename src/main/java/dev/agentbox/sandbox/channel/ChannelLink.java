package dev.agentbox.sandbox.channel;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How a {@link SandboxChannel} reaches its helper: connections to its endpoint, each handshaken
 * within {@link SandboxChannel#HANDSHAKE}; one spare connection made in the background after each
 * request, so the next request waits for no connect and no hello; and the channel's health — a
 * failure makes it unusable for {@link SandboxChannel#BACKOFF} (one WARN when it turns unusable,
 * one INFO when it answers again).
 */
final class ChannelLink {

    private static final Duration HANDSHAKE = SandboxChannel.HANDSHAKE;
    private static final Duration BACKOFF = SandboxChannel.BACKOFF;

    // The channel's logger: operators filter the channel's health by that one name.
    private static final Logger LOG = Logger.getLogger(SandboxChannel.class.getName());

    private final String name;
    private final ChannelEndpoint endpoint;
    private final ScheduledExecutorService watchdog;
    private final Executor readers;
    private final AtomicBoolean failing = new AtomicBoolean();
    private volatile long retryAt;

    ChannelLink(
            String name,
            ChannelEndpoint endpoint,
            ScheduledExecutorService watchdog,
            Executor readers) {
        this.name = name;
        this.endpoint = endpoint;
        this.watchdog = watchdog;
        this.readers = readers;
    }

    /**
     * The endpoint is present (a Unix socket: there, a socket, not a link) and the channel is not
     * backing off a failure.
     */
    boolean usable() {
        if (failing.get() && System.nanoTime() - retryAt < 0) {
            return false;
        }
        return endpoint.present();
    }

    /**
     * Records a failure of the channel itself: unusable for {@link SandboxChannel#BACKOFF}, logged
     * once.
     */
    void failed(Throwable cause) {
        retryAt = System.nanoTime() + BACKOFF.toNanos();
        if (failing.compareAndSet(false, true)) {
            LOG.log(
                    Level.WARNING,
                    "sandbox channel of {0} failed ({1}); not using it for {2} ms before trying it again",
                    new Object[] {name, describe(cause), BACKOFF.toMillis()});
        }
    }

    void answered() {
        if (failing.compareAndSet(true, false)) {
            LOG.log(Level.INFO, "sandbox channel of {0} answers again", name);
        }
    }

    static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    /**
     * A connection for one request: the spare when there is a fresh one still open, else a new one;
     * either way a new spare is made in the background shortly after the request's connection
     * closes.
     */
    ChannelConnection open() {
        ChannelConnection c = takeSpare();
        if (c == null) {
            c = connect();
        }
        // The next spare is made once this request is over, and a moment later still: made
        // sooner, its connect and the helper's fork of a handler would compete for the CPUs
        // with the request, then with the writing of its answer.
        c.onClose(this::refillSoon);
        return c;
    }

    /**
     * Connects and exchanges the hello within {@link SandboxChannel#HANDSHAKE}, or fails as a
     * channel failure.
     */
    private ChannelConnection connect() {
        try {
            ChannelConnection c = handshaken();
            answered();
            return c;
        } catch (IOException | RuntimeException e) {
            failed(e);
            throw new ChannelException(
                    "the sandbox channel of " + name + " could not be reached: " + describe(e),
                    false,
                    e);
        }
    }

    /**
     * A connection that exchanged the hello within {@link SandboxChannel#HANDSHAKE}; closed when it
     * did not.
     */
    private ChannelConnection handshaken() throws IOException {
        ChannelConnection c = new ChannelConnection(endpoint);
        ScheduledFuture<?> guard =
                watchdog.schedule(c::close, HANDSHAKE.toMillis(), TimeUnit.MILLISECONDS);
        try {
            c.handshake();
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        } finally {
            guard.cancel(false);
        }
    }

    /**
     * Whether the helper answers right now — proof that the container runs: a spare connection
     * still open says so without a round trip (the helper's handler behind it dies with the
     * container), else a hello on a new connection, which is then kept as the spare. Quiet: a
     * container that is stopped is no failure of the channel, so nothing is logged or backed off.
     */
    boolean answers() {
        if (!usable()) {
            return false;
        }
        Spare s = spare.get();
        if (s != null && s.fresh() && s.connection().idleAndOpen()) {
            return true;
        }
        ChannelConnection c = quietConnect();
        if (c == null) {
            return false;
        }
        keepSpare(c);
        return true;
    }

    /** A handshaken connection, or null when the helper does not answer (nothing logged). */
    private ChannelConnection quietConnect() {
        try {
            return handshaken();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * How long a spare connection is kept: less than the helper allows between its hello and the
     * request (10 s), so a spare taken is never one the helper is about to drop.
     */
    static final Duration SPARE_FOR = Duration.ofSeconds(8);

    /** A handshaken connection waiting for the next request, and when it was made. */
    private record Spare(ChannelConnection connection, long since) {
        boolean fresh() {
            return System.nanoTime() - since < SPARE_FOR.toNanos();
        }
    }

    private final AtomicReference<Spare> spare = new AtomicReference<>();
    private final AtomicBoolean refilling = new AtomicBoolean();

    /** The spare, when it is fresh and still open (then it is no longer the spare); else null. */
    private ChannelConnection takeSpare() {
        Spare s = spare.getAndSet(null);
        if (s == null) {
            return null;
        }
        if (s.fresh() && s.connection().idleAndOpen()) {
            return s.connection();
        }
        s.connection().close();
        return null;
    }

    /**
     * How long after a request's connection closed its successor spare is begun: time for the
     * request's answer to leave the server (measured on 2 vCPUs: 0.45 ms off an exec's median).
     */
    static final Duration SPARE_AFTER = Duration.ofMillis(4);

    private void refillSoon() {
        try {
            watchdog.schedule(this::refill, SPARE_AFTER.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // shutting down: no spare needed
        }
    }

    /**
     * Makes a new spare on a reader thread, unless one is being made or the channel backs off a
     * failure. The hello off the request's path is what makes a request one round trip.
     */
    private void refill() {
        if (!usable() || !refilling.compareAndSet(false, true)) {
            return;
        }
        try {
            readers.execute(
                    () -> {
                        try {
                            ChannelConnection c = quietConnect();
                            if (c != null) {
                                keepSpare(c);
                            }
                        } finally {
                            refilling.set(false);
                        }
                    });
        } catch (RejectedExecutionException e) {
            refilling.set(false);
        }
    }

    /** Keeps {@code c} as the spare (closing the one it replaces) until it grows stale. */
    private void keepSpare(ChannelConnection c) {
        Spare s = new Spare(c, System.nanoTime());
        Spare old = spare.getAndSet(s);
        if (old != null) {
            old.connection().close();
        }
        try {
            watchdog.schedule(
                    () -> {
                        if (spare.compareAndSet(s, null)) {
                            c.close();
                        }
                    },
                    SPARE_FOR.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            dropSpare();
        }
    }

    /** Whether a spare connection is waiting (diagnostics and tests). */
    boolean hasSpare() {
        return spare.get() != null;
    }

    /** Closes the spare connection (the sandbox is gone or forgotten). */
    void dropSpare() {
        Spare s = spare.getAndSet(null);
        if (s != null) {
            s.connection().close();
        }
    }
}
