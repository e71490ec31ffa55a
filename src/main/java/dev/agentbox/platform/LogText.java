package dev.agentbox.platform;

import java.util.HexFormat;

/**
 * Log-safe rendering of values a request supplied (ids, keys, paths, URLs, tenant names).
 *
 * <p>{@link #quote} keeps one value on one log line whatever it holds:
 *
 * <ul>
 *   <li>the result is wrapped in double quotes, and {@code "} and {@code \} inside are escaped, so
 *       a value cannot close its quotes and append a fake field;
 *   <li>CR, LF, TAB, every other C0/C1 control character, DEL, and the Unicode line and paragraph
 *       separators and the bidi overrides are written as escapes ({@code \r}, {@code \n}, {@code
 *       \t}, else a four-digit hex escape): a caller cannot start a forged log line;
 *   <li>at most {@link #MAX_CHARS} characters of the value are kept, followed by the number left
 *       out, so a megabyte-long id cannot flood the log.
 * </ul>
 *
 * It is for log lines only: the result is not a JSON string and is never parsed back.
 */
public final class LogText {

    /** Characters of the value kept in a log line; the rest is counted, not printed. */
    public static final int MAX_CHARS = 200;

    private LogText() {}

    /**
     * {@code s} quoted and escaped for one log line; {@code null} stays the bare word {@code null}.
     */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        int kept = Math.min(s.length(), MAX_CHARS);
        // Never cut a surrogate pair in half: the half left behind would print as garbage.
        if (kept < s.length() && kept > 0 && Character.isHighSurrogate(s.charAt(kept - 1))) {
            kept--;
        }
        StringBuilder b = new StringBuilder(kept + 16).append('"');
        for (int i = 0; i < kept; i++) {
            append(b, s.charAt(i));
        }
        b.append('"');
        if (kept < s.length()) {
            b.append("...(").append(s.length() - kept).append(" more chars)");
        }
        return b.toString();
    }

    /** {@link #quote} of {@code String.valueOf(o)}, for ids that are not strings. */
    public static String quote(Object o) {
        return o == null ? "null" : quote(o.toString());
    }

    /**
     * Controls, line/paragraph separators, and bidi overrides (which reorder what a reader sees).
     */
    private static boolean unsafe(char c) {
        return c < 0x20
                || (c >= 0x7f && c <= 0x9f)
                || c == '\u2028'
                || c == '\u2029'
                || (c >= '\u202a' && c <= '\u202e')
                || (c >= '\u2066' && c <= '\u2069');
    }

    private static void append(StringBuilder b, char c) {
        switch (c) {
            case '\r' -> b.append("\\r");
            case '\n' -> b.append("\\n");
            case '\t' -> b.append("\\t");
            case '"' -> b.append("\\\"");
            case '\\' -> b.append("\\\\");
            default -> {
                if (unsafe(c)) {
                    b.append("\\u").append(HexFormat.of().toHexDigits(c));
                } else {
                    b.append(c);
                }
            }
        }
    }
}
