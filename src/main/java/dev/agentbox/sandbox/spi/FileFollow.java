package dev.agentbox.sandbox.spi;

import java.time.Duration;

/**
 * A file followed from a byte offset: its bytes exactly as they are appended, pushed by the sandbox
 * as they are written (no process per read, no polling). One consumer calls {@link #next}; {@link
 * #close} may come from any thread.
 */
public interface FileFollow extends AutoCloseable {

    /**
     * The next bytes, waiting at most {@code maxWait}: {@code null} when none came in that time, an
     * empty array once the follow has ended for good (see {@link #endReason}).
     */
    byte[] next(Duration maxWait) throws InterruptedException;

    /** Whether it ended because the file does not exist (yet). */
    boolean missing();

    /** Why it ended; empty while it goes on. */
    String endReason();

    /** Stops following; idempotent, never throws. */
    @Override
    void close();
}
