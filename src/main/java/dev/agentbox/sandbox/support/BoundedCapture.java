package dev.agentbox.sandbox.support;

import java.io.ByteArrayOutputStream;

/**
 * The two output streams of one command, kept apart, holding at most {@code cap} bytes together.
 * Bytes past the cap are dropped, never buffered: memory stays bounded however much a command
 * prints. Thread-safe (the engine's reader thread appends while the waiting thread may take the
 * result after a deadline).
 */
public final class BoundedCapture {

    private final long cap;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private long size;
    private boolean overflowed;

    public BoundedCapture(long cap) {
        if (cap < 1) {
            throw new IllegalArgumentException("cap must be positive: " + cap);
        }
        this.cap = cap;
    }

    /**
     * Appends what still fits of {@code data[off, off+len)} to one stream.
     *
     * @return false once the cap has been reached (this call or an earlier one dropped bytes)
     */
    public synchronized boolean append(boolean stderr, byte[] data, int off, int len) {
        long room = cap - size;
        int take = (int) Math.min(room, len);
        if (take > 0) {
            (stderr ? err : out).write(data, off, take);
            size += take;
        }
        if (take < len) {
            overflowed = true;
        }
        return !overflowed;
    }

    /** True once bytes were dropped at the cap. */
    public synchronized boolean overflowed() {
        return overflowed;
    }

    public synchronized byte[] stdout() {
        return out.toByteArray();
    }

    public synchronized byte[] stderr() {
        return err.toByteArray();
    }

    public synchronized long size() {
        return size;
    }
}
