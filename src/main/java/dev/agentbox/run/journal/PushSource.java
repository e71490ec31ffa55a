package dev.agentbox.run.journal;

import dev.agentbox.sandbox.spi.FileFollow;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Follows the journal through the sandbox's own file follow ({@link
 * dev.agentbox.sandbox.spi.SandboxFs#follow}, the sandbox channel): the exact bytes, pushed as the
 * agent writes them — no {@code tail} process, no re-encoded text, so offsets stay exact even for
 * invalid UTF-8.
 *
 * <p>When the sandbox cannot follow (no channel, or its follow keeps ending without a byte) this
 * source hands over for good to a process-based source ({@link FollowSource}) started at the first
 * byte it has not delivered: nothing is lost or repeated across the switch. A follow that ends
 * after delivering bytes (the helper restarted) is opened again at that same offset.
 *
 * <p>Threads: {@link #next} from one consumer; {@link #close} from anyone.
 */
final class PushSource implements ByteSource {

    private static final Logger LOG = Logger.getLogger(PushSource.class.getName());

    /** Follows in a row that end without a byte before this source gives up on pushing. */
    static final int FRUITLESS_LIMIT = 3;

    private final SandboxHandle handle;
    private final String path;
    private final Duration pollInterval;
    private final LongFunction<ByteSource> fallbackAt;
    private final Object lock = new Object();
    private long received;
    private int fruitless;
    private FileFollow current;
    private ByteSource fallback;
    private boolean closed;

    /**
     * @param fallbackAt makes the process-based source that takes over at a given offset
     */
    PushSource(
            SandboxHandle handle,
            String path,
            long fromOffset,
            Duration pollInterval,
            LongFunction<ByteSource> fallbackAt) {
        this.handle = handle;
        this.path = path;
        this.received = fromOffset;
        this.pollInterval = pollInterval;
        this.fallbackAt = fallbackAt;
    }

    @Override
    public Fetch next(Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        FileFollow f;
        ByteSource fb;
        synchronized (lock) {
            if (closed) {
                return Fetch.none(false);
            }
            fb = fallback;
            f = current;
        }
        if (fb != null) {
            return fb.next(maxWait);
        }
        if (f == null) {
            Optional<FileFollow> opened;
            try {
                opened = handle.fs().follow(path, received);
            } catch (RuntimeException e) {
                opened = Optional.empty();
            }
            if (opened.isEmpty()) {
                return handOver("the sandbox cannot follow files").next(maxWait);
            }
            synchronized (lock) {
                if (closed) {
                    opened.get().close();
                    return Fetch.none(false);
                }
                current = opened.get();
                f = current;
            }
        }
        byte[] b;
        try {
            b = f.next(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Fetch.none(false);
        }
        if (b == null) {
            return Fetch.none(false);
        }
        if (b.length > 0) {
            synchronized (lock) {
                received += b.length;
                fruitless = 0;
            }
            return Fetch.bytes(b, false);
        }
        synchronized (lock) {
            current = null;
        }
        f.close();
        if (f.missing()) {
            sleep(Math.min(pollInterval.toNanos(), Math.max(0, deadline - System.nanoTime())));
            return Fetch.none(true);
        }
        if (++fruitless >= FRUITLESS_LIMIT) {
            handOver(f.endReason());
        }
        return Fetch.none(false);
    }

    private ByteSource handOver(String why) {
        ByteSource fb;
        synchronized (lock) {
            if (fallback == null) {
                LOG.log(
                        Level.FINE,
                        "following {0} with a process from byte {1}: {2}",
                        new Object[] {path, received, why});
                fallback = fallbackAt.apply(received);
            }
            fb = fallback;
        }
        return fb;
    }

    private static void sleep(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        FileFollow f;
        ByteSource fb;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            f = current;
            fb = fallback;
        }
        if (f != null) {
            f.close();
        }
        if (fb != null) {
            fb.close();
        }
    }
}
