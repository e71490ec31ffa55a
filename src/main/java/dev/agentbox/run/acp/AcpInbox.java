package dev.agentbox.run.acp;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.harness.AcpMessages;
import dev.agentbox.run.harness.AcpMessages.CancelNotification;
import dev.agentbox.run.harness.AcpMessages.Request;
import dev.agentbox.run.harness.BridgeFlags;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.tool.bridge.Mailbox;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * The files of an {@code acp} run in its sandbox, beside its journal: the inbox {@code
 * <enc>.mcp/acp/}, whose messages the helper's feeder ({@code agentbox-sandboxd acp-feed},
 * docs/sandbox-channel.md) copies to the agent's stdin once per name, and the token of the run's
 * MCP server ({@code .token}, which the feeder passes over). The inbox lives in the run's mailbox
 * directory, so it is deleted with the run's other files.
 *
 * <p>Names: {@code q-NNNNNN} our request N; {@code a-<32 hex>} our answer to the agent's request
 * whose id hashes to it; {@code c-cancel} the cancel; {@code end} closes the agent's stdin.
 */
public final class AcpInbox {

    public static final String END = "end";
    static final String TOKEN = ".token";
    static final String SESSION = ".session";
    static final String CANCEL = "c-cancel";

    private final SandboxHandle handle;
    private final String runId;
    private final String dir;

    private AcpInbox(SandboxHandle handle, String runId) {
        this.handle = handle;
        this.runId = runId;
        this.dir = JournalNames.mailboxPath(handle.journalDirectory(), runId) + "/acp";
    }

    public static AcpInbox of(SandboxHandle handle, String runId) {
        return new AcpInbox(handle, runId);
    }

    public String dir() {
        return dir;
    }

    String path(String name) {
        return dir + "/" + name;
    }

    /** The run's journal: the agent's stdout. */
    String journal() {
        return JournalNames.journalPath(handle.journalDirectory(), runId);
    }

    /** The run's tool-bridge mailbox, whose relay is the agent's {@code agentbox} MCP server. */
    String mailbox() {
        return Mailbox.of(handle.journalDirectory(), runId).dir();
    }

    static String requestName(long id) {
        return String.format("q-%06d", id);
    }

    /** {@code a-} and 32 hex digits of the SHA-256 of the id's JSON text. */
    static String answerName(JsonValue id) {
        try {
            byte[] h =
                    MessageDigest.getInstance("SHA-256")
                            .digest(id.toString().getBytes(StandardCharsets.UTF_8));
            return "a-" + HexFormat.of().formatHex(h).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The names already in the inbox (none when it is not there yet). */
    Set<String> names() {
        Set<String> names = new HashSet<>();
        try {
            for (FsEntry e : handle.fs().list(dir)) {
                if (!e.name().startsWith(".")) {
                    names.add(e.name());
                }
            }
        } catch (RuntimeException e) {
            // no inbox yet: nothing written
        }
        return names;
    }

    /** The run's prompt, as the launcher wrote it beside the journal. */
    String prompt() {
        return new String(
                handle.fs().readBytes(JournalNames.promptPath(handle.journalDirectory(), runId)),
                StandardCharsets.UTF_8);
    }

    /** The run's MCP token, written by the first driver before the agent started. */
    String token() {
        return new String(handle.fs().readBytes(path(TOKEN)), StandardCharsets.UTF_8).strip();
    }

    /** Whether the journal ends with an exit line: the agent is gone. */
    private boolean exited() {
        return handle.process()
                        .exec(
                                "tail -c 256 "
                                        + ShellQuote.single(journal())
                                        + " 2>/dev/null | grep -q '\"__exit\"'")
                        .exitCode()
                == 0;
    }

    /** Notes the open session, for a cancel from any server ({@link #cancel}). */
    void session(String sessionId) {
        handle.fs().write(path(SESSION), sessionId.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Asks the agent to end its turn ({@code session/cancel}) when its session is open, and waits
     * up to {@code graceMs} for it to exit; the caller then destroys the sandbox, which ends it in
     * any case. Best effort: a sandbox that cannot be written is destroyed at once.
     */
    public static void cancel(SandboxHandle handle, String runId, long graceMs) {
        AcpInbox inbox = new AcpInbox(handle, runId);
        try {
            String session =
                    new String(handle.fs().readBytes(inbox.path(SESSION)), StandardCharsets.UTF_8);
            handle.fs()
                    .write(
                            inbox.path(CANCEL),
                            AcpMessages.write(
                                            Request.notification(
                                                    "session/cancel",
                                                    new CancelNotification(session)))
                                    .getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return; // no session yet, or no sandbox: nothing to tell
        }
        long deadline = System.nanoTime() + Math.max(0, graceMs) * 1_000_000;
        while (System.nanoTime() < deadline) {
            try {
                if (inbox.exited()) {
                    return;
                }
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                return;
            }
        }
    }

    /**
     * How long an agent may take to exit once its turn is over and its stdin closed; agents that
     * keep running after EOF ({@code claude-code-acp} does) are then ended with SIGTERM.
     */
    static final int EXIT_GRACE_SECONDS = 1;

    /**
     * Prepares a first driver's start: the token file (when the run has an MCP server) and the
     * agent's command, its stdin a FIFO the feeder writes:
     *
     * <pre>
     * f=DIR/.stdin; mkfifo f; AGENT &lt; f &amp; a=$!; HELPER acp-feed DIR &gt; f
     * (sleep 1; kill -TERM $a) &amp; wait $a; s=$?; [ DIR/end exists and s = 143 ] &amp;&amp; s=0; exit $s
     * </pre>
     *
     * The feeder returns once the client wrote {@code end} (or the agent is gone); an agent still
     * running a second later is ended, and that end counts as a clean exit only when the turn was
     * over ({@code end} exists): an agent killed by anything else keeps its status.
     */
    public AgentInvocation launch(AgentInvocation agent, String token) {
        handle.fs().mkdir(dir);
        if (token != null) {
            handle.fs().write(path(TOKEN), token.getBytes(StandardCharsets.UTF_8));
        }
        String d = ShellQuote.single(dir);
        String fifo = ShellQuote.single(dir + "/.stdin");
        String end = ShellQuote.single(path(END));
        String line =
                "rm -f "
                        + fifo
                        + " && mkfifo -m 600 "
                        + fifo
                        + " || exit 1; "
                        + agent.command()
                        + " < "
                        + fifo
                        + " & a=$!; "
                        + BridgeFlags.HELPER
                        + " acp-feed "
                        + d
                        + " > "
                        + fifo
                        + "; ( sleep "
                        + EXIT_GRACE_SECONDS
                        + "; kill -TERM $a 2>/dev/null ) & k=$!; wait $a; s=$?;"
                        + " kill $k 2>/dev/null; if [ -e "
                        + end
                        + " ] && [ $s -eq 143 ]; then s=0; fi; exit $s";
        return new AgentInvocation(line, agent.prompt());
    }
}
