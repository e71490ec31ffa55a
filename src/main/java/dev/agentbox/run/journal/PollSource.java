package dev.agentbox.run.journal;

import dev.agentbox.sandbox.spi.SandboxHandle;
import java.time.Duration;
import java.util.Optional;

/**
 * Bounded reads every poll interval ({@code tail -c +N | head -c MAX | base64} via exec): for
 * providers whose processes cannot be killed (a {@code tail -f} could never be stopped), and
 * selectable anywhere. Holds nothing in the sandbox between reads, so closing is trivial.
 *
 * <p>Bytes arrive exactly as stored (base64-framed), so offsets are exact even for invalid UTF-8. A
 * failed exec (the sandbox or container is gone) or a failing read command ends the stream. Memory
 * per read is bounded by {@link #CHUNK_BYTES}.
 */
final class PollSource implements ByteSource {

    /** Largest read per exec. */
    static final int CHUNK_BYTES = 4 * 1024 * 1024;

    private final SandboxHandle handle;
    private final String runId;
    private final JournalFiles files;
    private final long intervalNanos;
    private long offset;
    private long lastReadNanos;
    private boolean readBefore;
    private volatile boolean closed;

    PollSource(
            SandboxHandle handle,
            String runId,
            long fromOffset,
            JournalFiles files,
            Duration interval) {
        this.handle = handle;
        this.runId = runId;
        this.offset = fromOffset;
        this.files = files;
        this.intervalNanos = interval.toNanos();
    }

    @Override
    public Fetch next(Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (!closed && !Thread.currentThread().isInterrupted()) {
            long now = System.nanoTime();
            long due = readBefore ? lastReadNanos + intervalNanos : now;
            if (due > now) {
                if (due > deadline) {
                    sleepNanos(deadline - now);
                    return Fetch.none(false);
                }
                sleepNanos(due - now);
            }
            lastReadNanos = System.nanoTime();
            readBefore = true;
            JournalFiles.Read r;
            try {
                r = files.readFrom(handle, runId, offset, CHUNK_BYTES);
            } catch (RuntimeException e) {
                return Fetch.ended("reading the journal failed: " + e.getMessage(), Optional.of(e));
            }
            if (r.bytes().length > 0) {
                offset += r.bytes().length;
                if (r.bytes().length == CHUNK_BYTES) {
                    readBefore = false; // more is waiting: read again without pausing
                }
                return Fetch.bytes(r.bytes(), r.missing());
            }
            if (r.missing() || System.nanoTime() >= deadline) {
                return Fetch.none(r.missing());
            }
        }
        return Fetch.none(false);
    }

    @Override
    public void close() {
        closed = true;
    }

    private static void sleepNanos(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
