package dev.agentbox.sandbox.channel;

import dev.agentbox.sandbox.spi.FileFollow;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A file followed through the channel ({@code G}): one reader thread moves the helper's data frames
 * into a small bounded queue. When the consumer is slow the reader blocks, the socket fills and the
 * helper stops reading the file — back-pressure all the way, at most {@link #QUEUED} frames (each
 * at most 64 KiB) held here.
 */
final class ChannelFollow implements FileFollow {

    static final int QUEUED = 16;
    private static final byte[] END = new byte[0];

    private final SandboxChannel owner;
    private final ChannelConnection connection;
    private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUED);
    private volatile boolean closed;
    private volatile boolean ended;
    private volatile boolean missing;
    private volatile String reason = "";

    ChannelFollow(SandboxChannel owner, ChannelConnection connection) {
        this.owner = owner;
        this.connection = connection;
    }

    void pump() {
        try {
            while (!closed) {
                Frame f = connection.read();
                if (f.type() == ChannelProtocol.DATA) {
                    put(f.payload());
                } else if (f.type() == ChannelProtocol.FAILED) {
                    ChannelRefusal r = ChannelRefusal.of(f);
                    missing = r.code().equals("ENOENT");
                    reason = "the helper refused to follow: " + r.getMessage();
                    return;
                } else {
                    throw new ChannelConnection.ChannelProtocolException(
                            "frame " + (char) f.type() + " in a follow");
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                owner.failed(e);
                reason = "the sandbox channel ended: " + e.getMessage();
            }
        } finally {
            ended = true;
            connection.close();
        }
    }

    private void put(byte[] b) {
        while (!closed) {
            try {
                if (queue.offer(b, 100, TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public byte[] next(Duration maxWait) throws InterruptedException {
        long until = System.nanoTime() + Math.max(0, maxWait.toNanos());
        while (true) {
            // The flag first: a frame queued before the end is never missed.
            boolean over = ended;
            byte[] b =
                    queue.poll(
                            Math.min(50_000_000L, Math.max(0, until - System.nanoTime())),
                            TimeUnit.NANOSECONDS);
            if (b != null) {
                return b;
            }
            if (over || closed) {
                return END;
            }
            if (System.nanoTime() >= until) {
                return null;
            }
        }
    }

    @Override
    public boolean missing() {
        return missing;
    }

    @Override
    public String endReason() {
        return reason;
    }

    @Override
    public void close() {
        closed = true;
        connection.close();
        queue.clear();
    }
}
