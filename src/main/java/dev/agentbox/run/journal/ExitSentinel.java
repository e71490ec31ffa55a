package dev.agentbox.run.journal;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises a run's exit-sentinel line, {@code {"__exit":N,"__nonce":"<nonce>"}}.
 *
 * <p>A line is the sentinel only if it is <em>exactly</em> that text: no whitespace, those two
 * members in that order, N a decimal integer as {@code printf %d} writes it, and the run's own
 * nonce ({@link JournalId#nonce()}, random per run). Anything else — {@code {"__exit":0}}, another
 * run's nonce, the nonce an older version derived from the runId, {@code "__exit":"0"}, extra
 * members — is the agent's ordinary output (an agent must not be able to end its own journal early
 * by printing something sentinel-like).
 */
public final class ExitSentinel {

    private static final Pattern SHAPE =
            Pattern.compile(
                    "\\{\"__exit\":(0|-?[1-9][0-9]{0,9}),\"__nonce\":\"([0-9a-f]{32})\"\\}");

    private final String nonce;

    private ExitSentinel(String nonce) {
        this.nonce = nonce;
    }

    /** The sentinel of {@code journal}, by its nonce. */
    public static ExitSentinel of(JournalId journal) {
        return new ExitSentinel(journal.nonce());
    }

    public String nonce() {
        return nonce;
    }

    /** The exit code if {@code line} (without its {@code \n}) is this run's sentinel. */
    public OptionalInt exitCode(String line) {
        Matcher m = SHAPE.matcher(line);
        if (!m.matches() || !m.group(2).equals(nonce)) {
            return OptionalInt.empty();
        }
        long code = Long.parseLong(m.group(1));
        if (code < Integer.MIN_VALUE || code > Integer.MAX_VALUE) {
            return OptionalInt.empty();
        }
        return OptionalInt.of((int) code);
    }

    /** The sentinel line for {@code exitCode}, as the journal command writes it (no newline). */
    public String line(int exitCode) {
        return "{\"__exit\":" + exitCode + ",\"__nonce\":\"" + nonce + "\"}";
    }
}
