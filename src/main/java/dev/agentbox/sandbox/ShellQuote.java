package dev.agentbox.sandbox;

/** POSIX shell quoting. */
public final class ShellQuote {

    private ShellQuote() {
    }

    /** {@code s} as one single-quoted shell word. */
    public static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
