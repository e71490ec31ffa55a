package dev.agentbox.run.journal;

import java.nio.charset.StandardCharsets;

/** Prompts that would break any command line they were pasted into. */
final class Prompts {

    /**
     * One piece: a leading dash, both quotes, substitutions, printf formats, newlines, non-ASCII.
     */
    static final String PIECE =
            "--help me: it's \"broken\" '\\'' $(touch canary) `touch canary` ${HOME} %s %d \\n\n"
                    + "\ttab; rm -rf canary & | > canary < /dev/null \r\n"
                    + "é ü ß 日本語 🎉 \u2028 end\n";

    private Prompts() {}

    /** {@link #PIECE} repeated until the UTF-8 text is at least {@code minBytes} long. */
    static String atLeast(int minBytes) {
        StringBuilder b = new StringBuilder();
        int bytes = 0;
        for (int i = 0; bytes < minBytes; i++) {
            String piece = PIECE + i + "\n";
            b.append(piece);
            bytes += piece.getBytes(StandardCharsets.UTF_8).length;
        }
        return b.toString();
    }
}
