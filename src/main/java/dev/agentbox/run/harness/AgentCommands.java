package dev.agentbox.run.harness;

import dev.agentbox.run.journal.AgentInvocation;
import java.util.regex.Pattern;

/**
 * How the service runs the CLI harnesses with a run's {@code prompt}. The command lines are
 * constants: the prompt is never on them, it reaches the CLI on its stdin (written to the run's
 * prompt file by the journal launcher, see {@link AgentInvocation}). So a prompt of any size and
 * content — quotes, {@code $()}, newlines, a leading {@code -} — is the CLI's input verbatim and is
 * never parsed by a shell or as an option.
 */
public final class AgentCommands {

    /** {@code claude -p} without a prompt argument reads the prompt from stdin. */
    public static final String CLAUDE_CODE = "claude -p --output-format stream-json --verbose";

    /** {@code codex exec -} reads the prompt from stdin. */
    public static final String CODEX = "codex exec --json -";

    private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    private AgentCommands() {}

    /** {@value #CLAUDE_CODE}, reading {@code prompt} on stdin. */
    public static AgentInvocation claudeCode(String prompt) {
        return AgentInvocation.withPrompt(CLAUDE_CODE, requirePrompt(prompt));
    }

    /**
     * {@value #CLAUDE_CODE} continuing the Claude session {@code sessionId} ({@code --resume}),
     * reading {@code prompt} on stdin. The session id is a value the CLI printed (a UUID); only
     * {@code [A-Za-z0-9_-]} is accepted, so it needs no quoting on the command line.
     */
    public static AgentInvocation claudeCodeResuming(String sessionId, String prompt) {
        if (sessionId == null || !SESSION_ID.matcher(sessionId).matches()) {
            throw new IllegalArgumentException("not a Claude session id");
        }
        return AgentInvocation.withPrompt(
                CLAUDE_CODE + " --resume " + sessionId, requirePrompt(prompt));
    }

    /** A Claude session id as {@link #claudeCodeResuming} accepts it. */
    public static boolean isSessionId(String sessionId) {
        return sessionId != null && SESSION_ID.matcher(sessionId).matches();
    }

    /** {@value #CODEX}, reading {@code prompt} on stdin. */
    public static AgentInvocation codex(String prompt) {
        return AgentInvocation.withPrompt(CODEX, requirePrompt(prompt));
    }

    /**
     * The invocation for a CLI harness.
     *
     * @throws IllegalArgumentException for {@link Harness#COMMAND}, whose command the caller
     *     supplies, and for a blank prompt
     */
    public static AgentInvocation forHarness(Harness harness, String prompt) {
        return switch (harness) {
            case CLAUDE_CODE -> claudeCode(prompt);
            case CODEX -> codex(prompt);
            case COMMAND ->
                    throw new IllegalArgumentException(
                            "the command harness runs the caller's command");
        };
    }

    private static String requirePrompt(String prompt) {
        if (prompt == null || prompt.isBlank()) {
            throw new IllegalArgumentException("prompt must not be blank");
        }
        return prompt;
    }
}
