package dev.agentbox.sandbox.channel;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Byte frames handed from one reader thread to one consumer through a small bounded queue. While
 * the consumer is slow the reader blocks in {@link #put}, so the stream it reads (a socket, an
 * exec's pipe) fills and its producer stops: back-pressure all the way, at most {@code capacity}
 * frames held here.
 *
 * <p>The end is a flag, not an element: the reader may be a thread already interrupted (docker-java
 * interrupts its callback threads), where a blocking put of an end marker would be lost. A frame
 * queued before the end is never missed: {@link #next} reads the flag before it polls.
 */
public final class FrameQueue {

    /** What {@link #next} returns once the stream has ended (or the queue was closed). */
    public static final byte[] END = new byte[0];

    private final BlockingQueue<byte[]> queue;
    private volatile boolean ended;
    private volatile boolean closed;

    public FrameQueue(int capacity) {
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    /**
     * Blocks the reader until the consumer takes {@code frame} or the queue is closed. An interrupt
     * does not drop the frame (the consumer decides when to stop, by closing); it is kept for the
     * caller.
     */
    public void put(byte[] frame) {
        boolean interrupted = false;
        while (!closed) {
            try {
                if (queue.offer(frame, 100, TimeUnit.MILLISECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The stream ended: the consumer gets what is queued, then {@link #END}. */
    public void end() {
        ended = true;
    }

    /**
     * The next frame, waiting at most {@code maxWait}: {@code null} when none came that long,
     * {@link #END} once the stream has ended and nothing is left, or at once after {@link #close}.
     */
    public byte[] next(Duration maxWait) throws InterruptedException {
        long until = System.nanoTime() + Math.max(0, maxWait.toNanos());
        while (true) {
            if (closed) {
                // A reader blocked in put may still slip one frame in after close() cleared
                // the queue: a closed queue gives nothing more, whatever it holds.
                return END;
            }
            boolean over = ended;
            byte[] b =
                    queue.poll(
                            Math.min(50_000_000L, Math.max(0, until - System.nanoTime())),
                            TimeUnit.NANOSECONDS);
            if (b != null) {
                return b;
            }
            if (over) {
                return END;
            }
            if (System.nanoTime() >= until) {
                return null;
            }
        }
    }

    /** Stops a blocked reader and drops what is queued. */
    public void close() {
        closed = true;
        queue.clear();
    }

    public boolean closed() {
        return closed;
    }
}
