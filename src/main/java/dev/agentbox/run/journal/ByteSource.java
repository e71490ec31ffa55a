package dev.agentbox.run.journal;

import java.time.Duration;
import java.util.Optional;

/**
 * Where a {@link JournalReader} gets journal bytes from: in order, without gaps or repeats,
 * starting at the reader's offset. One consumer thread calls {@link #next}; {@link #close} may come
 * from any thread and makes a waiting {@code next} return.
 */
interface ByteSource extends AutoCloseable {

    /**
     * What one {@link #next} saw.
     *
     * @param bytes the next bytes (possibly none)
     * @param missing the journal file was seen not to exist
     * @param ended the stream is over for good (no more bytes will come from this source)
     * @param reason why it ended ("" unless ended)
     * @param cause the failure that ended it, if any
     */
    record Fetch(
            byte[] bytes,
            boolean missing,
            boolean ended,
            String reason,
            Optional<Throwable> cause) {

        static Fetch bytes(byte[] b, boolean missing) {
            return new Fetch(b, missing, false, "", Optional.empty());
        }

        static Fetch none(boolean missing) {
            return new Fetch(new byte[0], missing, false, "", Optional.empty());
        }

        static Fetch ended(String reason, Optional<Throwable> cause) {
            return new Fetch(new byte[0], false, true, reason, cause);
        }
    }

    /** Waits up to {@code maxWait} (zero: no waiting) for bytes or the end of the stream. */
    Fetch next(Duration maxWait);

    /**
     * Stops reading and releases what the source holds in the sandbox; idempotent, never throws.
     */
    @Override
    void close();
}
