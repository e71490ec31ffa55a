package dev.agentbox.run.harness;

import dev.agentbox.run.journal.AgentInvocation;
import java.util.regex.Pattern;

/**
 * How the service runs the CLI harnesses with a run's {@code prompt}. The command lines are
 * constants but for the permission mode and a session id: the prompt is never on them, it reaches
 * the CLI on its stdin (written to the run's prompt file by the journal launcher, see {@link
 * AgentInvocation}). So a prompt of any size and content — quotes, {@code $()}, newlines, a leading
 * {@code -} — is the CLI's input verbatim and is never parsed by a shell or as an option.
 *
 * <p>The {@link PermissionMode} decides what the agent may do without asking; nobody can answer a
 * question in a non-interactive run, so what needs asking is refused. By default ({@link
 * PermissionMode#FALLBACK}, {@code bypassPermissions}) the agent edits files and runs commands
 * freely: the sandbox is the boundary.
 *
 * <ul>
 *   <li>Claude Code gets {@code --permission-mode <mode>}. Sandboxes run commands as root, and
 *       Claude Code refuses {@code bypassPermissions} as root unless {@code IS_SANDBOX=1} says it
 *       runs in a sandbox, so that mode's line sets it.
 *   <li>Codex has no such modes; {@code bypassPermissions} is {@code
 *       --dangerously-bypass-approvals-and-sandbox} (no approvals, no sandbox of Codex's own),
 *       {@code acceptEdits} is Codex's {@code workspace-write} sandbox and {@code default} and
 *       {@code plan} its {@code read-only} one. Codex's own sandbox needs user namespaces, which an
 *       unprivileged container does not allow: in a Docker sandbox every command Codex runs under
 *       those two modes fails (Codex reports a failed {@code command_execution}). {@code
 *       --skip-git-repo-check} lets Codex work in a workspace that is not a git repository.
 * </ul>
 */
public final class AgentCommands {

    /** {@code claude -p} without a prompt argument reads the prompt from stdin. */
    public static final String CLAUDE_CODE = "claude -p --output-format stream-json --verbose";

    /** {@code codex exec} with {@code -} as its prompt reads the prompt from stdin. */
    public static final String CODEX = "codex exec --json --skip-git-repo-check";

    /** {@code codex exec resume}, before its permission flags, session id and {@code -}. */
    public static final String CODEX_RESUME = "codex exec resume --json --skip-git-repo-check";

    private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    private AgentCommands() {}

    /** Claude Code in the default mode, reading {@code prompt} on stdin. */
    public static AgentInvocation claudeCode(String prompt) {
        return claudeCode(prompt, PermissionMode.FALLBACK);
    }

    /** Claude Code in {@code mode}, reading {@code prompt} on stdin. */
    public static AgentInvocation claudeCode(String prompt, PermissionMode mode) {
        return AgentInvocation.withPrompt(claudeLine(mode), requirePrompt(prompt));
    }

    /** {@link #claudeCodeResuming(String, String, PermissionMode)} in the default mode. */
    public static AgentInvocation claudeCodeResuming(String sessionId, String prompt) {
        return claudeCodeResuming(sessionId, prompt, PermissionMode.FALLBACK);
    }

    /**
     * Claude Code in {@code mode} continuing the Claude session {@code sessionId} ({@code
     * --resume}), reading {@code prompt} on stdin. The session id is a value the CLI printed (a
     * UUID); only {@code [A-Za-z0-9_-]} is accepted, so it needs no quoting on the command line.
     */
    public static AgentInvocation claudeCodeResuming(
            String sessionId, String prompt, PermissionMode mode) {
        return AgentInvocation.withPrompt(
                claudeLine(mode) + " --resume " + requireSessionId(sessionId),
                requirePrompt(prompt));
    }

    /** A session id as {@link #claudeCodeResuming} and {@link #codexResuming} accept it. */
    public static boolean isSessionId(String sessionId) {
        return sessionId != null && SESSION_ID.matcher(sessionId).matches();
    }

    /** Codex in the default mode, reading {@code prompt} on stdin. */
    public static AgentInvocation codex(String prompt) {
        return codex(prompt, PermissionMode.FALLBACK);
    }

    /** Codex in {@code mode}, reading {@code prompt} on stdin. */
    public static AgentInvocation codex(String prompt, PermissionMode mode) {
        return AgentInvocation.withPrompt(
                CODEX + " " + codexPermissions(mode) + " -", requirePrompt(prompt));
    }

    /**
     * Codex in {@code mode} continuing its session (the {@code thread_id} of its {@code
     * thread.started}) with {@code codex exec resume}, reading {@code prompt} on stdin.
     */
    public static AgentInvocation codexResuming(
            String threadId, String prompt, PermissionMode mode) {
        return AgentInvocation.withPrompt(
                CODEX_RESUME
                        + " "
                        + codexPermissions(mode)
                        + " "
                        + requireSessionId(threadId)
                        + " -",
                requirePrompt(prompt));
    }

    /** The invocation for a CLI harness in the default mode. */
    public static AgentInvocation forHarness(Harness harness, String prompt) {
        return forHarness(harness, prompt, PermissionMode.FALLBACK);
    }

    /**
     * The invocation for a CLI harness in {@code mode}.
     *
     * @throws IllegalArgumentException for {@link Harness#COMMAND}, whose command the caller
     *     supplies, and for a blank prompt
     */
    public static AgentInvocation forHarness(Harness harness, String prompt, PermissionMode mode) {
        return switch (harness) {
            case CLAUDE_CODE -> claudeCode(prompt, mode);
            case CODEX -> codex(prompt, mode);
            case COMMAND ->
                    throw new IllegalArgumentException(
                            "the command harness runs the caller's command");
            case ACP ->
                    throw new IllegalArgumentException(
                            "the acp harness runs its agent's command (AcpSpec)");
        };
    }

    /** Claude Code's command line in {@code mode}, without a session to resume. */
    static String claudeLine(PermissionMode mode) {
        String line = CLAUDE_CODE + " --permission-mode " + mode.wireName();
        return mode == PermissionMode.BYPASS_PERMISSIONS ? "IS_SANDBOX=1 " + line : line;
    }

    /** Codex's flags for {@code mode}. */
    static String codexPermissions(PermissionMode mode) {
        return switch (mode) {
            case BYPASS_PERMISSIONS -> "--dangerously-bypass-approvals-and-sandbox";
            case ACCEPT_EDITS -> "-c sandbox_mode=workspace-write";
            case DEFAULT, PLAN -> "-c sandbox_mode=read-only";
        };
    }

    private static String requireSessionId(String sessionId) {
        if (!isSessionId(sessionId)) {
            throw new IllegalArgumentException("not a session id");
        }
        return sessionId;
    }

    private static String requirePrompt(String prompt) {
        if (prompt == null || prompt.isBlank()) {
            throw new IllegalArgumentException("prompt must not be blank");
        }
        return prompt;
    }
}
