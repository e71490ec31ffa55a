package dev.agentbox.run.journal;

/**
 * One complete journal line.
 *
 * @param text the line without its {@code \n}, UTF-8 decoded (malformed bytes become U+FFFD)
 * @param endOffset the byte offset just past the line's {@code \n}: where a reader resumes
 */
public record JournalLine(String text, long endOffset) {
}
