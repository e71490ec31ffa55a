package dev.agentbox.sandbox.channel;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.AsynchronousCloseException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A file read over the channel whose stat has arrived ({@link SandboxChannel#openRead}): the caller
 * admits or refuses the file by {@link #stat()} before a byte is copied, then streams it with
 * {@link #transferTo} or drops it with {@link #close}. One connection and one request answer both
 * the admission and the bytes.
 *
 * <p>Invariants: never more than the read's limit reaches the destination (the helper sends one
 * byte more for a file that grew past it, which fails the copy); one frame at a time is held; a
 * sandbox silent for the copy's {@code silence} ends it with an error.
 */
public final class ChannelRead implements Closeable {

    private final SandboxChannel channel;
    private final ChannelConnection connection;
    private final ScheduledExecutorService watchdog;
    private final String path;
    private final long max;
    private final SandboxChannel.Stat stat;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final ScheduledFuture<?> unclaimed;

    /**
     * A read not copied within {@code claimWithin} is dropped: its helper handler would otherwise
     * wait on a full socket for a reader that never comes (a response that was never written).
     */
    ChannelRead(
            SandboxChannel channel,
            ChannelConnection connection,
            ScheduledExecutorService watchdog,
            String path,
            long max,
            SandboxChannel.Stat stat,
            Duration claimWithin) {
        this.channel = channel;
        this.connection = connection;
        this.watchdog = watchdog;
        this.path = path;
        this.max = max;
        this.stat = stat;
        this.unclaimed =
                watchdog.schedule(
                        () -> {
                            if (claimed.compareAndSet(false, true)) {
                                connection.close();
                            }
                        },
                        Math.max(1, claimWithin.toMillis()),
                        TimeUnit.MILLISECONDS);
    }

    /** What the helper found when it opened the file: a regular file, and its size then. */
    public SandboxChannel.Stat stat() {
        return stat;
    }

    /**
     * Copies the file to {@code out} and closes the connection; {@code silence} bounds each wait
     * for the sandbox, not the time {@code out} takes.
     *
     * @return the bytes copied
     */
    public long transferTo(OutputStream out, Duration silence) throws IOException {
        if (!claimed.compareAndSet(false, true)) {
            throw new IOException("read of " + path + " was dropped before it was copied");
        }
        unclaimed.cancel(false);
        long copied = 0;
        try {
            while (true) {
                Frame f = readWithin(silence);
                switch (f.type()) {
                    case ChannelProtocol.DATA -> {
                        if (copied + f.payload().length > max) {
                            throw new IOException(
                                    "read of "
                                            + path
                                            + " aborted: the file grew past the limit of "
                                            + max
                                            + " bytes");
                        }
                        out.write(f.payload());
                        copied += f.payload().length;
                    }
                    case ChannelProtocol.COMPLETED -> {
                        return copied;
                    }
                    case ChannelProtocol.FAILED -> throw ChannelRefusal.of(f);
                    default ->
                            throw new ChannelConnection.ChannelProtocolException(
                                    "unexpected frame " + (char) f.type() + " in a read");
                }
            }
        } catch (AsynchronousCloseException e) {
            throw new IOException(
                    "read of " + path + " stalled: no data for " + silence.toMillis() + " ms", e);
        } catch (ChannelConnection.ChannelProtocolException e) {
            channel.failed(e);
            throw e;
        } finally {
            connection.close();
        }
    }

    private Frame readWithin(Duration silence) throws IOException {
        ScheduledFuture<?> guard =
                watchdog.schedule(
                        connection::close, Math.max(1, silence.toMillis()), TimeUnit.MILLISECONDS);
        try {
            return connection.read();
        } finally {
            guard.cancel(false);
        }
    }

    /** Drops the read (the helper stops at its next write). */
    @Override
    public void close() {
        claimed.set(true);
        unclaimed.cancel(false);
        connection.close();
    }
}
