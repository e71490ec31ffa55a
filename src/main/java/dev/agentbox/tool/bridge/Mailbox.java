package dev.agentbox.tool.bridge;

import java.util.regex.Pattern;

/**
 * The files of a run's tool bridge in its sandbox (docs/sandbox-channel.md, "The tool bridge's
 * mailbox"): {@code DIR/sessions} lists session names, one a line; session {@code S} writes {@code
 * DIR/S.in} (its token, then one JSON-RPC message a line) and reads {@code DIR/S.out/N}, the
 * server's N-th message to it (N from 1).
 *
 * @param dir absolute directory inside the sandbox
 */
public record Mailbox(String dir) {

    /**
     * What the relay names a session: 16 hex digits. Anything else in {@code sessions} is ignored.
     */
    private static final Pattern SESSION = Pattern.compile("[0-9a-f]{16}");

    /**
     * The mailbox of run {@code runId} in a sandbox whose journal directory is {@code journalDir}.
     */
    public static Mailbox of(String journalDir, String runId) {
        return new Mailbox(journalDir + "/" + runId + ".mcp");
    }

    public static boolean validSession(String name) {
        return SESSION.matcher(name).matches();
    }

    public String sessions() {
        return dir + "/sessions";
    }

    public String in(String session) {
        return dir + "/" + session + ".in";
    }

    public String outDir(String session) {
        return dir + "/" + session + ".out";
    }

    public String out(String session, long seq) {
        return outDir(session) + "/" + seq;
    }
}
