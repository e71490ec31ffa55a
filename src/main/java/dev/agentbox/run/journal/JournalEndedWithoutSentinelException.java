package dev.agentbox.run.journal;

/**
 * The journal stream ended before the run's exit sentinel (agent or container died, the journal
 * file was deleted, or the sandbox could no longer be read). The message always contains "ended
 * without an exit sentinel"; the cause, when present, is why the stream ended.
 */
public final class JournalEndedWithoutSentinelException extends RuntimeException {

    private final long position;

    public JournalEndedWithoutSentinelException(long position, int pendingBytes) {
        this(position, pendingBytes, "", null);
    }

    /**
     * @param reason appended to the message when not empty (e.g. "the journal file is gone")
     * @param cause the failure that ended the stream, or null
     */
    public JournalEndedWithoutSentinelException(
            long position, int pendingBytes, String reason, Throwable cause) {
        super(
                "journal ended without an exit sentinel (at byte "
                        + position
                        + (pendingBytes > 0
                                ? ", " + pendingBytes + " bytes of an unfinished line ignored"
                                : "")
                        + ")"
                        + (reason.isEmpty() ? "" : ": " + reason),
                cause);
        this.position = position;
    }

    /** Byte offset just past the last complete line. */
    public long position() {
        return position;
    }
}
