package dev.agentbox.run.journal;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.SandboxHandle;

/**
 * The shell commands that start a journaled agent and read its journal inside a sandbox.
 *
 * <p>The journaled form is exactly (docs/architecture.md, "Journal format"):
 *
 * <pre>
 * mkdir -p 'DIR' &amp;&amp; { ( CMD ) IN; printf '{"__exit":%d,"__nonce":"NONCE"}\n' "$?"; } &gt;&gt; 'J' 2&gt;&gt; 'ERR'
 * </pre>
 *
 * <ul>
 *   <li>{@code CMD} is the agent command, inserted verbatim: it is a shell command by intent (the
 *       caller's {@code command}, or a CLI's from {@code AgentCommands}). It must be a complete
 *       command list: balanced quotes and parentheses, and no trailing {@code #} comment (which
 *       would swallow the closing parenthesis).
 *   <li>{@code IN} is {@code < 'PROMPT'} when the agent reads a prompt ({@link
 *       AgentInvocation#prompt()}, written beforehand by {@link PromptFile}), else nothing. A
 *       missing prompt file fails CMD (exit status non-zero, the shell's message in ERR) rather
 *       than running the agent without its task.
 *   <li>Every path is single-quoted with {@link ShellQuote#single} and built from the encoded
 *       runId, so no runId can inject anything. NONCE is the run's own ({@link JournalId}), hex.
 *   <li>The subshell keeps an {@code exit} in CMD from skipping the sentinel; {@code $?} is CMD's
 *       exit status; the appends ({@code >>}) keep the journal append-only.
 * </ul>
 *
 * <p>The detached form, used to start the agent so it outlives the caller (the exec that started
 * it, and the server), is
 *
 * <pre>
 * sh -c 'trap "" HUP; &lt;journaled form&gt;' &lt;/dev/null &gt;/dev/null 2&gt;&amp;1 &amp;
 * </pre>
 *
 * (with the inner text single-quoted by {@link ShellQuote#single}). Why this shape: {@code &} lets
 * the starting shell return at once; {@code trap '' HUP} does what {@code nohup} does — an ignored
 * signal stays ignored across {@code exec} and cannot be re-enabled by a non-interactive shell, so
 * neither the wrapper nor the agent dies of the SIGHUP a closing session sends — but with a shell
 * builtin, because {@code nohup} and {@code setsid} are optional BusyBox applets (Debian's BusyBox
 * has neither {@code nohup} nor a guarantee of {@code setsid}); redirecting all three standard
 * streams means the background job holds none of the starting exec's pipes, so a Docker exec (or a
 * local process) that started it completes immediately instead of waiting for the agent, and an
 * agent CLI that reads stdin when it is not a terminal sees EOF instead of blocking. Only {@code
 * sh}, {@code mkdir} and {@code printf} are needed in the sandbox.
 *
 * <p>Instances are immutable and bound to one directory. A journal's directory belongs to its
 * sandbox ({@link SandboxHandle#journalDirectory()}), so code working on a sandbox gets its
 * commands from {@link #of(SandboxHandle)}; the constructor's directory is for commands run outside
 * any sandbox (tests that run them in a temporary directory).
 */
public final class JournalCommand {

    private final String dir;

    /** The commands for the journals of {@code handle}'s sandbox. */
    public static JournalCommand of(SandboxHandle handle) {
        return new JournalCommand(handle.journalDirectory());
    }

    /** Commands for journals in {@code dir} (absolute, no trailing slash). */
    public JournalCommand(String dir) {
        if (dir.isEmpty() || !dir.startsWith("/") || (dir.endsWith("/") && dir.length() > 1)) {
            throw new IllegalArgumentException(
                    "journal dir must be absolute without a trailing slash: " + dir);
        }
        this.dir = dir;
    }

    public String dir() {
        return dir;
    }

    public String journalPath(String runId) {
        return JournalNames.journalPath(dir, runId);
    }

    public String errPath(String runId) {
        return JournalNames.errPath(dir, runId);
    }

    public String promptPath(String runId) {
        return JournalNames.promptPath(dir, runId);
    }

    /** The journaled form of a command that reads no prompt. */
    public String journaled(String agentCommand, JournalId journal) {
        return journaled(AgentInvocation.of(agentCommand), journal);
    }

    /** The journaled form (runs in the foreground of the shell that executes it). */
    public String journaled(AgentInvocation agent, JournalId journal) {
        String runId = journal.runId();
        String stdin =
                agent.prompt().isPresent() ? " < " + ShellQuote.single(promptPath(runId)) : "";
        return "mkdir -p "
                + ShellQuote.single(dir)
                + " && { ( "
                + agent.command()
                + " )"
                + stdin
                + "; printf '{\"__exit\":%d,\"__nonce\":\""
                + journal.nonce()
                + "\"}\\n' \"$?\"; }"
                + " >> "
                + ShellQuote.single(journalPath(runId))
                + " 2>> "
                + ShellQuote.single(errPath(runId));
    }

    /** The detached form of a command that reads no prompt. */
    public String detached(String agentCommand, JournalId journal) {
        return detached(AgentInvocation.of(agentCommand), journal);
    }

    /** The detached form: returns at once, the agent keeps running and journaling. */
    public String detached(AgentInvocation agent, JournalId journal) {
        return "sh -c "
                + ShellQuote.single("trap '' HUP; " + journaled(agent, journal))
                + " </dev/null >/dev/null 2>&1 &";
    }

    /**
     * Follow the journal from byte {@code offset} (0-based) as it grows: the follow reader's
     * command, stopped by killing it. {@code tail -c +N} counts from 1, hence {@code offset + 1}.
     */
    public String follow(String runId, long offset) {
        // In a container GNU tail cannot use inotify on the overlay filesystem and falls back
        // to polling once a second; -s 0.05 bounds the line-to-reader delay at 50 ms. BusyBox
        // tail takes whole seconds only, so it keeps its one-second polling (poll mode, at
        // 250 ms, is the faster choice there). GNU tail is told apart by --version.
        String tail = "tail -c +" + (requireOffset(offset) + 1);
        String journal = ShellQuote.single(journalPath(runId));
        return "if tail --version >/dev/null 2>&1; then exec "
                + tail
                + " -s 0.05 -f "
                + journal
                + "; else exec "
                + tail
                + " -f "
                + journal
                + "; fi";
    }

    /**
     * One bounded read of everything from byte {@code offset}, base64-framed so that the exec
     * result carries arbitrary bytes intact (the decoder must ignore line breaks). A journal that
     * does not exist yet reads as empty.
     */
    public String readFrom(String runId, long offset) {
        String j = ShellQuote.single(journalPath(runId));
        return "if [ -f "
                + j
                + " ]; then tail -c +"
                + (requireOffset(offset) + 1)
                + " "
                + j
                + " | base64; fi";
    }

    /**
     * Like {@link #readFrom(String, long)} but at most {@code maxBytes} bytes, so that one read of
     * a long journal (a takeover from byte 0) stays bounded; a reader that gets exactly {@code
     * maxBytes} reads again at once.
     */
    public String readFrom(String runId, long offset, int maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
        }
        String j = ShellQuote.single(journalPath(runId));
        return "if [ -f "
                + j
                + " ]; then tail -c +"
                + (requireOffset(offset) + 1)
                + " "
                + j
                + " | head -c "
                + maxBytes
                + " | base64; fi";
    }

    /** The last {@value JournalProbe#WINDOW_BYTES} bytes of the journal, base64-framed. */
    public String probeTail(String runId) {
        String j = ShellQuote.single(journalPath(runId));
        return "if [ -f "
                + j
                + " ]; then tail -c "
                + JournalProbe.WINDOW_BYTES
                + " "
                + j
                + " | base64; fi";
    }

    public String mailboxPath(String runId) {
        return JournalNames.mailboxPath(dir, runId);
    }

    /**
     * Deletes the run's files (journal, err, prompt, and its tool-bridge mailbox, a directory);
     * deleting missing files succeeds.
     */
    public String delete(String runId) {
        return "rm -f "
                + ShellQuote.single(journalPath(runId))
                + " "
                + ShellQuote.single(errPath(runId))
                + " "
                + ShellQuote.single(promptPath(runId))
                + " && rm -rf "
                + ShellQuote.single(mailboxPath(runId));
    }

    private static long requireOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative: " + offset);
        }
        return offset;
    }
}
