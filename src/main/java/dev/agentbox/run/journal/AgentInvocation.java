package dev.agentbox.run.journal;

import dev.agentbox.sandbox.spi.JournalNames;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link JournalLauncher} starts: a shell command list, and the prompt that command reads on
 * its standard input, if any.
 *
 * <p>The prompt is never part of the command line: it can be far longer than one argument may be
 * (Linux caps a single argument at 128 KiB), and a command line is visible to every process in the
 * sandbox through {@code /proc}. The launcher writes it to the run's prompt file ({@link
 * JournalNames#promptPath}, mode 0600) and the journaled form redirects the command's stdin from
 * that file. Without a prompt the command's stdin is {@code /dev/null}.
 *
 * @param command a complete shell command list (see {@link JournalCommand}), not blank
 * @param prompt the text fed to the command's stdin, as UTF-8
 */
public record AgentInvocation(String command, Optional<String> prompt) {

    public AgentInvocation {
        if (command == null || command.isBlank()) {
            throw new IllegalArgumentException("agent command must not be blank");
        }
        Objects.requireNonNull(prompt, "prompt");
    }

    /** {@code command} with no prompt (stdin {@code /dev/null}). */
    public static AgentInvocation of(String command) {
        return new AgentInvocation(command, Optional.empty());
    }

    /** {@code command} reading {@code prompt} on its stdin. */
    public static AgentInvocation withPrompt(String command, String prompt) {
        return new AgentInvocation(command, Optional.of(prompt));
    }
}
