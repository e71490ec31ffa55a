package dev.agentbox.run.harness;

import dev.agentbox.platform.ShellQuote;

/**
 * The agent command lines the service builds from a run's {@code prompt} for the CLI
 * harnesses. The prompt is always one single-quoted shell word ({@link ShellQuote#single}),
 * so quotes, {@code $()}, backquotes and newlines reach the CLI verbatim and run nothing.
 *
 * <p>A prompt that starts with {@code -} would be parsed by the CLI as an option; it gets one
 * leading space (harmless to a model, never an option), which keeps the documented argument
 * order without relying on each CLI's handling of {@code --}.
 */
public final class AgentCommands {

    private AgentCommands() {
    }

    /** {@code claude -p '<prompt>' --output-format stream-json --verbose}. */
    public static String claudeCode(String prompt) {
        return "claude -p " + word(prompt) + " --output-format stream-json --verbose";
    }

    /** {@code codex exec --json '<prompt>'}. */
    public static String codex(String prompt) {
        return "codex exec --json " + word(prompt);
    }

    /**
     * The command line for a CLI harness.
     *
     * @throws IllegalArgumentException for {@link Harness#COMMAND}, whose command the caller
     *     supplies, and for a blank prompt
     */
    public static String forHarness(Harness harness, String prompt) {
        return switch (harness) {
            case CLAUDE_CODE -> claudeCode(prompt);
            case CODEX -> codex(prompt);
            case COMMAND -> throw new IllegalArgumentException("the command harness runs the caller's command");
        };
    }

    private static String word(String prompt) {
        if (prompt == null || prompt.isBlank()) {
            throw new IllegalArgumentException("prompt must not be blank");
        }
        return ShellQuote.single(prompt.startsWith("-") ? " " + prompt : prompt);
    }
}
