package dev.agentbox.run.journal;

/** The journal stream ended before the run's exit sentinel (agent or container died). */
public final class JournalEndedWithoutSentinelException extends RuntimeException {

    private final long position;

    public JournalEndedWithoutSentinelException(long position, int pendingBytes) {
        super("journal ended without an exit sentinel (at byte " + position
                + (pendingBytes > 0 ? ", " + pendingBytes + " bytes of an unfinished line ignored" : "") + ")");
        this.position = position;
    }

    /** Byte offset just past the last complete line. */
    public long position() {
        return position;
    }
}
