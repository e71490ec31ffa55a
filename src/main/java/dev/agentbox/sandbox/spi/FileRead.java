package dev.agentbox.sandbox.spi;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A file read that was admitted (it existed, was a regular file, and no larger than the limit when
 * looked at) and has not started yet. {@link #transferTo} copies it without holding it in memory,
 * and never copies more than the limit: the file may have changed since it was looked at (grown, or
 * been replaced by a FIFO), so the copy is bounded again. A copy that cannot finish — over the
 * limit, the sandbox silent past the internal deadline, the destination failing (client gone) —
 * stops the reading command and throws.
 */
public interface FileRead {

    /** The size seen when the read was admitted. */
    long size();

    /** Copies the file's bytes to {@code out}; at most once. */
    void transferTo(OutputStream out) throws IOException;
}
