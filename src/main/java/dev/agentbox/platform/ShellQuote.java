package dev.agentbox.platform;

// Hand-written: nothing in the JDK quotes for a shell; checked against real shells by
// ShellQuoteTest.
/**
 * Quoting for POSIX shells (bash, dash, BusyBox ash).
 *
 * <p>{@link #single} wraps a string in single quotes, inside which a POSIX shell interprets nothing
 * at all: no {@code $}, no backquote, no backslash, no glob, no newline handling. The only
 * character that cannot appear inside single quotes is {@code '} itself, which is written as {@code
 * '\''} (close, escaped quote, reopen). The result is therefore always one word whose value is
 * exactly the input.
 */
public final class ShellQuote {

    private ShellQuote() {}

    /**
     * The single-quoted shell word for {@code s}.
     *
     * @throws IllegalArgumentException if {@code s} contains NUL, which no shell word (and no C
     *     string argument) can carry
     */
    public static String single(String s) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a shell word cannot contain NUL");
        }
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
