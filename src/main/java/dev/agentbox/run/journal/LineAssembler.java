package dev.agentbox.run.journal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

// Hand-written: no JDK reader splits lines at exact byte offsets under a line cap; decoding is the
// JDK's.
/**
 * Turns journal bytes, fed in arbitrary pieces, into complete lines.
 *
 * <p>Memory is bounded by the line cap: an assembler made with a {@code maxLineBytes} keeps at most
 * that many bytes of an unfinished line. The rest of an over-long line is counted (so {@link
 * #position()} stays exact) but not kept; when its {@code \n} arrives the line is delivered with
 * {@link JournalLine#truncated()} set and its first bytes as text, cut back to a UTF-8 character
 * boundary. A truncated line is never the sentinel (a sentinel is under 100 bytes). Without a cap
 * (the two older constructors) a line may grow without bound.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Only complete lines are delivered; bytes after the last {@code \n} wait for more.
 *   <li>{@link #position()} is the absolute byte offset just past the last delivered (or sentinel)
 *       line: it advances only at a {@code \n}, and counts bytes, not characters, so a reader can
 *       resume with {@code tail -c +(position+1)} after any split, including one inside a
 *       multi-byte character.
 *   <li>Lines are split on the byte {@code 0x0A}, which never occurs inside a multi-byte UTF-8
 *       sequence, then decoded whole; malformed bytes become U+FFFD rather than being dropped. A
 *       {@code \r} before the {@code \n} is kept as part of the line.
 *   <li>The first line that is this run's {@link ExitSentinel} ends the journal: it is not
 *       delivered, {@link #exitCode()} becomes present, and every later byte is ignored.
 * </ul>
 *
 * Not thread-safe: one reader feeds it.
 */
public final class LineAssembler {

    /** Cap meaning "no cap". */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    private final ExitSentinel sentinel;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final int maxLineBytes;

    /** Bytes of the current line beyond the cap: counted, not kept. */
    private long dropped;

    private long truncatedLines;
    private long position;
    private OptionalInt exitCode = OptionalInt.empty();

    /** An assembler for a read starting at byte {@code startOffset} of the journal. */
    public LineAssembler(ExitSentinel sentinel, long startOffset) {
        this(sentinel, startOffset, UNBOUNDED);
    }

    /**
     * An assembler for a read starting at byte {@code startOffset} that keeps at most {@code
     * maxLineBytes} bytes of any one line (longer lines are delivered truncated).
     */
    public LineAssembler(ExitSentinel sentinel, long startOffset, int maxLineBytes) {
        if (startOffset < 0) {
            throw new IllegalArgumentException("startOffset must not be negative");
        }
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes must be positive");
        }
        this.sentinel = sentinel;
        this.position = startOffset;
        this.maxLineBytes = maxLineBytes;
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
            keep(bytes, start, i - start);
            long lineEnd = position + pending.size() + dropped + 1;
            boolean truncated = dropped > 0;
            String text = truncated ? truncatedText() : pending.toString(StandardCharsets.UTF_8);
            pending.reset();
            dropped = 0;
            start = i + 1;
            position = lineEnd;
            OptionalInt code = truncated ? OptionalInt.empty() : sentinel.exitCode(text);
            if (code.isPresent()) {
                exitCode = code;
            } else {
                if (truncated) {
                    truncatedLines++;
                }
                lines.add(new JournalLine(text, lineEnd, truncated));
            }
        }
        if (exitCode.isEmpty() && start < end) {
            keep(bytes, start, end - start);
        }
        return lines;
    }

    /** Appends to the unfinished line up to the cap; counts the rest. */
    private void keep(byte[] bytes, int off, int len) {
        int room = maxLineBytes - pending.size();
        int kept = Math.max(0, Math.min(room, len));
        pending.write(bytes, off, kept);
        dropped += len - kept;
    }

    /**
     * The kept bytes without a character the cap cut in two: a decoder told more input may follow
     * leaves such a tail undecoded, while malformed bytes still become U+FFFD.
     */
    private String truncatedText() {
        ByteBuffer in = ByteBuffer.wrap(pending.toByteArray());
        CharBuffer out = CharBuffer.allocate(in.remaining());
        StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)
                .decode(in, out, false);
        return out.flip().toString();
    }

    /** How many lines were delivered truncated so far. */
    public long truncatedLines() {
        return truncatedLines;
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

    /**
     * Bytes of an incomplete last line waiting for their {@code \n} (kept or counted past the cap).
     */
    public int pendingBytes() {
        return (int) Math.min(Integer.MAX_VALUE, pending.size() + dropped);
    }

    /**
     * Called when the byte stream has ended: returns the exit code, or fails because a journal that
     * ends without its sentinel means the agent (or its container) died unrecorded.
     *
     * @throws JournalEndedWithoutSentinelException when no sentinel was read
     */
    public int requireExitCode() {
        if (exitCode.isEmpty()) {
            throw new JournalEndedWithoutSentinelException(position, pendingBytes());
        }
        return exitCode.getAsInt();
    }
}
