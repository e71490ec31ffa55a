package dev.agentbox.run.journal;

import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.util.Optional;

/**
 * Starts an agent journaled and detached inside a sandbox, and manages its journal files.
 *
 * <p>{@link #start} first writes the agent's prompt, if any, to its file ({@link PromptFile}), so
 * the agent never finds it missing or half-written: a small prompt in the same exec, before the
 * agent is backgrounded (in a subshell, so its {@code umask} and {@code set -C} stay there), a
 * larger one in execs of its own. It then returns as soon as the starting {@code exec} has
 * returned, which is at once: the detached form ({@link JournalCommand#detached}) backgrounds the
 * journaled shell with all three standard streams redirected and SIGHUP ignored, so the agent keeps
 * running and journaling after the exec, the caller's thread, or the whole server is gone. Whether
 * it ran to the end is only ever learned from the journal (its sentinel).
 *
 * <p>Every operation works in the sandbox's own journal directory ({@link
 * SandboxHandle#journalDirectory()}). Stateless and thread-safe.
 */
public final class JournalLauncher {

    /**
     * Starts {@code agentCommand}, which reads no prompt; see {@link #start(SandboxHandle,
     * JournalId, AgentInvocation)}.
     */
    public void start(SandboxHandle handle, JournalId journal, String agentCommand) {
        start(handle, journal, AgentInvocation.of(agentCommand));
    }

    /**
     * Writes the agent's prompt, if it has one, then starts its command journaled into {@code
     * journal} (its files, its sentinel's nonce) and returns at once.
     *
     * @throws JournalOperationException when writing the prompt or the starting shell itself failed
     *     (non-zero exit); provider exceptions (sandbox gone) propagate as they are
     */
    public void start(SandboxHandle handle, JournalId journal, AgentInvocation agent) {
        start(handle, journal, agent, () -> {});
    }

    /**
     * As {@link #start(SandboxHandle, JournalId, AgentInvocation)}, running {@code beforeAgent}
     * once the prompt is written and before the agent starts (what must precede the agent's first
     * action without delaying the prompt's write).
     */
    public void start(
            SandboxHandle handle, JournalId journal, AgentInvocation agent, Runnable beforeAgent) {
        JournalCommand commands = JournalCommand.of(handle);
        PromptFile prompts = new PromptFile(commands);
        // A prompt of one small piece is written by the same exec that starts the agent (one
        // round trip into the sandbox fewer before the agent starts); a larger one first, in
        // pieces.
        Optional<String> inline =
                agent.prompt().flatMap(p -> prompts.inlineWrite(journal.runId(), p));
        if (agent.prompt().isPresent() && inline.isEmpty()) {
            prompts.write(handle, journal.runId(), agent.prompt().get());
        }
        beforeAgent.run();
        String detached = commands.detached(agent, journal);
        ExecResult r =
                handle.process()
                        .exec(
                                inline.map(w -> "(" + w + ") || exit $?; " + detached)
                                        .orElse(detached));
        if (r.exitCode() != 0) {
            throw new JournalOperationException(
                    (inline.isPresent() ? "writing the prompt of or " : "")
                            + "starting the journaled agent of run "
                            + journal.runId()
                            + " failed (exit "
                            + r.exitCode()
                            + "): "
                            + JournalFiles.tail(r.stderr() + r.stdout(), 1500));
        }
    }

    /**
     * The last {@code maxChars} characters of the run's {@code .err} file; "" when it is missing.
     */
    public String errTail(SandboxHandle handle, String runId, int maxChars) {
        return new JournalFiles(JournalCommand.of(handle)).errTail(handle, runId, maxChars);
    }

    /** Deletes the run's files (journal, err, prompt); deleting missing files succeeds. */
    public void delete(SandboxHandle handle, String runId) {
        ExecResult r = handle.process().exec(JournalCommand.of(handle).delete(runId));
        if (r.exitCode() != 0) {
            throw new JournalOperationException(
                    "deleting the journal of run "
                            + runId
                            + " failed (exit "
                            + r.exitCode()
                            + "): "
                            + JournalFiles.tail(r.stderr(), 300));
        }
    }

    /** Whether the run's journal file exists. */
    public boolean exists(SandboxHandle handle, String runId) {
        return new JournalFiles(JournalCommand.of(handle)).exists(handle, runId);
    }
}
