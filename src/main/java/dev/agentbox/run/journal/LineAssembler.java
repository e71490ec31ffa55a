package dev.agentbox.run.journal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Turns journal bytes, fed in arbitrary pieces, into complete lines.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Only complete lines are delivered; bytes after the last {@code \n} wait for more.</li>
 *   <li>{@link #position()} is the absolute byte offset just past the last delivered (or
 *       sentinel) line: it advances only at a {@code \n}, and counts bytes, not characters,
 *       so a reader can resume with {@code tail -c +(position+1)} after any split, including
 *       one inside a multi-byte character.</li>
 *   <li>Lines are split on the byte {@code 0x0A}, which never occurs inside a multi-byte UTF-8
 *       sequence, then decoded whole; malformed bytes become U+FFFD rather than being dropped.
 *       A {@code \r} before the {@code \n} is kept as part of the line.</li>
 *   <li>The first line that is this run's {@link ExitSentinel} ends the journal: it is not
 *       delivered, {@link #exitCode()} becomes present, and every later byte is ignored.</li>
 * </ul>
 * Not thread-safe: one reader feeds it.
 */
public final class LineAssembler {

    private final ExitSentinel sentinel;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private long position;
    private OptionalInt exitCode = OptionalInt.empty();

    /** An assembler for a read starting at byte {@code startOffset} of the journal. */
    public LineAssembler(ExitSentinel sentinel, long startOffset) {
        if (startOffset < 0) {
            throw new IllegalArgumentException("startOffset must not be negative");
        }
        this.sentinel = sentinel;
        this.position = startOffset;
    }

    /** An assembler for a read from byte 0. */
    public LineAssembler(ExitSentinel sentinel) {
        this(sentinel, 0);
    }

    public List<JournalLine> feed(byte[] bytes) {
        return feed(bytes, 0, bytes.length);
    }

    /** Feeds {@code len} bytes; returns the lines they complete (before any sentinel). */
    public List<JournalLine> feed(byte[] bytes, int off, int len) {
        List<JournalLine> lines = new ArrayList<>();
        int start = off;
        int end = off + len;
        for (int i = off; i < end && exitCode.isEmpty(); i++) {
            if (bytes[i] != '\n') {
                continue;
            }
            pending.write(bytes, start, i - start);
            long lineEnd = position + pending.size() + 1;
            String text = pending.toString(StandardCharsets.UTF_8);
            pending.reset();
            start = i + 1;
            position = lineEnd;
            OptionalInt code = sentinel.exitCode(text);
            if (code.isPresent()) {
                exitCode = code;
            } else {
                lines.add(new JournalLine(text, lineEnd));
            }
        }
        if (exitCode.isEmpty() && start < end) {
            pending.write(bytes, start, end - start);
        }
        return lines;
    }

    /** Byte offset just past the last complete line consumed. */
    public long position() {
        return position;
    }

    /** The exit code, once this run's sentinel has been read. */
    public OptionalInt exitCode() {
        return exitCode;
    }

    public boolean finished() {
        return exitCode.isPresent();
    }

    /** Bytes of an incomplete last line waiting for their {@code \n}. */
    public int pendingBytes() {
        return pending.size();
    }

    /**
     * Called when the byte stream has ended: returns the exit code, or fails because a journal
     * that ends without its sentinel means the agent (or its container) died unrecorded.
     *
     * @throws JournalEndedWithoutSentinelException when no sentinel was read
     */
    public int requireExitCode() {
        if (exitCode.isEmpty()) {
            throw new JournalEndedWithoutSentinelException(position, pending.size());
        }
        return exitCode.getAsInt();
    }
}
