package dev.agentbox.run.journal;

/**
 * One complete journal line.
 *
 * @param text the line without its {@code \n}, UTF-8 decoded (malformed bytes become U+FFFD); when
 *     {@code truncated}, only the line's first bytes (see {@link LineAssembler})
 * @param endOffset the byte offset just past the line's {@code \n}: where a reader resumes (always
 *     the real end of the line, truncated or not)
 * @param truncated whether the line was longer than the reader's line cap and {@code text} is only
 *     its beginning (cut at a character boundary)
 */
public record JournalLine(String text, long endOffset, boolean truncated) {

    /** A whole (not truncated) line. */
    public JournalLine(String text, long endOffset) {
        this(text, endOffset, false);
    }
}
