package dev.agentbox.agent;

import dev.agentbox.agent.RunAgentInput.Message;
import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.AgentInvocation;
import java.util.List;
import java.util.Optional;

/**
 * What an agent run is given: the prompt, and how the thread continues. A {@code claude-code} or
 * {@code codex} run whose thread has a session of that CLI (an earlier run logged {@code CUSTOM
 * claude-code.session-id} or {@code codex.session-id}) resumes that session with the prompt alone
 * ({@code claude --resume}, {@code codex exec resume}); every other run gets the earlier user and
 * assistant messages of the input as a short transcript before the prompt (the newest {@value
 * #MAX_MESSAGES} messages, each cut at {@value #MAX_MESSAGE_CHARS} characters).
 */
public final class AgentPrompt {

    static final int MAX_MESSAGES = 20;
    static final int MAX_MESSAGE_CHARS = 4000;

    private AgentPrompt() {}

    /** The prompt text: the transcript (if any) and then the input's prompt. */
    public static String text(List<Message> earlier, String prompt) {
        if (earlier.isEmpty()) {
            return prompt;
        }
        StringBuilder sb = new StringBuilder("[Conversation so far]\n");
        for (Message m :
                earlier.subList(Math.max(0, earlier.size() - MAX_MESSAGES), earlier.size())) {
            String t = m.text();
            if (t.length() > MAX_MESSAGE_CHARS) {
                t = t.substring(0, MAX_MESSAGE_CHARS) + " …";
            }
            sb.append(m.role()).append(": ").append(t).append('\n');
        }
        return sb.append("[Current message]\n").append(prompt).toString();
    }

    /**
     * The command run in the sandbox: the definition's command (prompt on stdin), or the harness
     * CLI in the definition's permission mode, resuming {@code cliSession} when there is one.
     */
    public static AgentInvocation invocation(
            AgentTemplate template,
            List<Message> earlier,
            String prompt,
            Optional<String> cliSession) {
        if (cliSession.isPresent() && template.harness() == Harness.CLAUDE_CODE) {
            return AgentCommands.claudeCodeResuming(
                    cliSession.get(), prompt, template.effectivePermissionMode());
        }
        if (cliSession.isPresent() && template.harness() == Harness.CODEX) {
            return AgentCommands.codexResuming(
                    cliSession.get(), prompt, template.effectivePermissionMode());
        }
        if (template.harness() == Harness.ACP) {
            // The thread's session is continued by the ACP client (session/resume or load),
            // so a run that has one gets the prompt alone.
            return AgentInvocation.withPrompt(
                    template.acp().orElseThrow().commandLine(),
                    cliSession.isPresent() ? prompt : text(earlier, prompt));
        }
        String text = text(earlier, prompt);
        return template.harness() == Harness.COMMAND
                ? AgentInvocation.withPrompt(template.command().orElseThrow(), text)
                : AgentCommands.forHarness(
                        template.harness(), text, template.effectivePermissionMode());
    }
}
