package dev.agentbox.run.journal;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.util.Base64;

/**
 * Bounded reads of a run's journal files through {@code exec}, base64-framed so that arbitrary
 * bytes survive the exec's text decoding. Exec failures (the sandbox is gone) propagate as the
 * provider's exceptions; callers decide what they mean.
 */
final class JournalFiles {

    /**
     * What one bounded read saw: the bytes from the requested offset, and whether the journal file
     * was missing after the read. ({@code !} is outside the base64 alphabet, so the marker cannot
     * be confused with data.)
     */
    record Read(byte[] bytes, boolean missing) {}

    private static final String MISSING_MARKER = "!missing";

    private final JournalCommand commands;

    JournalFiles(JournalCommand commands) {
        this.commands = commands;
    }

    JournalCommand commands() {
        return commands;
    }

    /**
     * Up to {@code maxBytes} bytes from byte {@code offset}. A file deleted between the read and
     * the check shows as bytes plus missing, which callers treat like any missing file.
     *
     * @throws ReadFailedException when the read command itself failed inside the sandbox
     */
    Read readFrom(SandboxHandle handle, String runId, long offset, int maxBytes) {
        String j = ShellQuote.single(commands.journalPath(runId));
        ExecResult r =
                handle.process()
                        .exec(
                                commands.readFrom(runId, offset, maxBytes)
                                        + "; [ -f "
                                        + j
                                        + " ] || echo '"
                                        + MISSING_MARKER
                                        + "'");
        if (r.exitCode() != 0 || !r.stderr().isBlank()) {
            throw new ReadFailedException(
                    "reading the journal failed (exit "
                            + r.exitCode()
                            + "): "
                            + tail(r.stderr(), 300));
        }
        String out = r.stdout();
        boolean missing = out.contains(MISSING_MARKER);
        if (missing) {
            out = out.replace(MISSING_MARKER, "");
        }
        return new Read(decode(out), missing);
    }

    /** Whether the journal file exists. */
    boolean exists(SandboxHandle handle, String runId) {
        return handle.process()
                        .exec("[ -f " + ShellQuote.single(commands.journalPath(runId)) + " ]")
                        .exitCode()
                == 0;
    }

    /** The last {@code maxChars} characters of the {@code .err} file; "" when it is missing. */
    String errTail(SandboxHandle handle, String runId, int maxChars) {
        if (maxChars <= 0) {
            return "";
        }
        String e = ShellQuote.single(commands.errPath(runId));
        // up to 4 bytes per character: read enough bytes, decode, keep the last maxChars
        long bytes = Math.min(4L * maxChars, Integer.MAX_VALUE);
        ExecResult r =
                handle.process()
                        .exec(
                                "if [ -f "
                                        + e
                                        + " ]; then tail -c "
                                        + bytes
                                        + " "
                                        + e
                                        + " | base64; fi");
        if (r.exitCode() != 0) {
            throw new ReadFailedException(
                    "reading the stderr tail failed (exit "
                            + r.exitCode()
                            + "): "
                            + tail(r.stderr(), 300));
        }
        String text = new String(decode(r.stdout()), java.nio.charset.StandardCharsets.UTF_8);
        return tail(text, maxChars);
    }

    static byte[] decode(String base64) {
        return Base64.getMimeDecoder().decode(base64.strip());
    }

    /** The last {@code max} characters of {@code s}, never splitting a surrogate pair. */
    static String tail(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        int from = s.length() - max;
        if (Character.isLowSurrogate(s.charAt(from))) {
            from++;
        }
        return s.substring(from);
    }

    /** A read command that ran but failed inside the sandbox (a broken tool, not a lost race). */
    static final class ReadFailedException extends RuntimeException {
        ReadFailedException(String message) {
            super(message);
        }
    }
}
