package dev.agentbox.run.journal;

import java.time.Duration;

/**
 * How a {@link JournalReader} reads. Defaults are docs/behavior.md's constants; tests shorten the
 * bounds.
 *
 * @param mode {@link Mode#AUTO} follows when the provider's processes run in the background and are
 *     killable, else polls
 * @param pollInterval pause between bounded reads in poll mode (250 ms), and between checks for a
 *     journal file that does not exist yet in follow mode
 * @param firstByteBound a journal read from byte 0 whose first byte has not arrived within this
 *     long after opening is stalled (10 s)
 * @param writerProbeAfter after this much silence the reader asks the sandbox whether the journal's
 *     writer is still alive (and again after each such interval); only a writer proven dead ends
 *     the read — a slow, living agent is never cut off (5 s)
 * @param maxLineBytes cap on one line; a longer line is delivered truncated (1 MiB)
 * @param maxBufferedBytes follow mode: bytes received from {@code tail} but not yet polled; beyond
 *     it the reader stops the {@code tail} and restarts it once the backlog has been polled (8 MiB)
 *     <p>No directory: a reader reads in its sandbox's journal directory ({@link
 *     dev.agentbox.sandbox.spi.SandboxHandle#journalDirectory()}).
 */
public record JournalReaderOptions(
        Mode mode,
        Duration pollInterval,
        Duration firstByteBound,
        Duration writerProbeAfter,
        int maxLineBytes,
        int maxBufferedBytes) {

    /** How the journal is read. */
    public enum Mode {
        AUTO,
        FOLLOW,
        POLL
    }

    public static final Duration POLL_INTERVAL = Duration.ofMillis(250);
    public static final Duration FIRST_BYTE_BOUND = Duration.ofMillis(10_000);
    public static final Duration WRITER_PROBE_AFTER = Duration.ofMillis(5_000);
    public static final int MAX_LINE_BYTES = 1024 * 1024;
    public static final int MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

    public JournalReaderOptions {
        requirePositive(pollInterval, "pollInterval");
        requirePositive(firstByteBound, "firstByteBound");
        requirePositive(writerProbeAfter, "writerProbeAfter");
        if (maxLineBytes < 1 || maxBufferedBytes < 1) {
            throw new IllegalArgumentException("byte bounds must be positive");
        }
        if (mode == null) {
            throw new IllegalArgumentException("mode is required");
        }
    }

    public static JournalReaderOptions defaults() {
        return new JournalReaderOptions(
                Mode.AUTO,
                POLL_INTERVAL,
                FIRST_BYTE_BOUND,
                WRITER_PROBE_AFTER,
                MAX_LINE_BYTES,
                MAX_BUFFERED_BYTES);
    }

    public JournalReaderOptions withMode(Mode m) {
        return new JournalReaderOptions(
                m, pollInterval, firstByteBound, writerProbeAfter, maxLineBytes, maxBufferedBytes);
    }

    public JournalReaderOptions withFirstByteBound(Duration d) {
        return new JournalReaderOptions(
                mode, pollInterval, d, writerProbeAfter, maxLineBytes, maxBufferedBytes);
    }

    public JournalReaderOptions withWriterProbeAfter(Duration d) {
        return new JournalReaderOptions(
                mode, pollInterval, firstByteBound, d, maxLineBytes, maxBufferedBytes);
    }

    public JournalReaderOptions withMaxLineBytes(int n) {
        return new JournalReaderOptions(
                mode, pollInterval, firstByteBound, writerProbeAfter, n, maxBufferedBytes);
    }

    public JournalReaderOptions withMaxBufferedBytes(int n) {
        return new JournalReaderOptions(
                mode, pollInterval, firstByteBound, writerProbeAfter, maxLineBytes, n);
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
    }
}
