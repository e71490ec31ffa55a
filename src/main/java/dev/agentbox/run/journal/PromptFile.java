package dev.agentbox.run.journal;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * Writes a run's prompt into its sandbox, beside the journal ({@link JournalNames#promptPath}), for
 * the journaled agent to read on its stdin. It is deleted with the journal ({@link
 * JournalCommand#delete}).
 *
 * <ul>
 *   <li>Mode 0600: the file is created by a shell under {@code umask 077}, after removing any file
 *       of that name, with {@code set -C} so that {@code >} creates it rather than writing into one
 *       that appeared meanwhile. Only the sandbox user that runs the agent can read it.
 *   <li>Through {@code exec}, not the sandbox's file API: the local provider's file API refuses
 *       paths outside its workspace, and a Docker archive upload sets neither the exec user as
 *       owner nor the mode; a shell works alike on Debian, BusyBox and the host.
 *   <li>In base64 pieces of at most {@value #CHUNK_BYTES} bytes, one exec each: a command is one
 *       {@code sh -c} argument, which Linux caps at 128 KiB, so a 1 MiB prompt takes several. The
 *       first piece truncates, the others append; a prompt of any bytes (quotes, {@code $()},
 *       newlines, non-ASCII) is carried as base64 and only ever decoded into the file, so nothing
 *       in it reaches a shell as code. Needs {@code base64 -d} in the sandbox.
 * </ul>
 */
final class PromptFile {

    /**
     * Raw bytes per exec: 98,304 base64 characters, three quarters of Linux's per-argument limit.
     */
    static final int CHUNK_BYTES = 72 * 1024;

    /** The largest prompt written by the exec that starts the agent ({@link #inlineWrite}). */
    static final int INLINE_BYTES = 16 * 1024;

    private final JournalCommand commands;

    PromptFile(JournalCommand commands) {
        this.commands = commands;
    }

    /**
     * Writes {@code prompt} (as UTF-8) to the run's prompt file, replacing any earlier one.
     *
     * @throws JournalOperationException when a write command failed inside the sandbox
     */
    void write(SandboxHandle handle, String runId, String prompt) {
        byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        do {
            int to = Math.min(bytes.length, from + CHUNK_BYTES);
            String piece = Base64.getEncoder().encodeToString(Arrays.copyOfRange(bytes, from, to));
            ExecResult r =
                    handle.process().exec(from == 0 ? first(runId, piece) : next(runId, piece));
            if (r.exitCode() != 0) {
                throw new JournalOperationException(
                        "writing the prompt of run "
                                + runId
                                + " failed (exit "
                                + r.exitCode()
                                + "): "
                                + JournalFiles.tail(r.stderr(), 300));
            }
            from = to;
        } while (from < bytes.length);
    }

    /**
     * The one command that writes {@code prompt} whole, when it is at most {@value #INLINE_BYTES}
     * bytes (so that it can share the agent's starting exec and stay far below the argument limit);
     * empty for a larger prompt, which {@link #write} writes in pieces.
     */
    Optional<String> inlineWrite(String runId, String prompt) {
        byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
        return bytes.length <= INLINE_BYTES
                ? Optional.of(first(runId, Base64.getEncoder().encodeToString(bytes)))
                : Optional.empty();
    }

    /** Creates the file, mode 0600, with the first piece. */
    String first(String runId, String base64) {
        String p = ShellQuote.single(commands.promptPath(runId));
        return "mkdir -p "
                + ShellQuote.single(commands.dir())
                + " && umask 077 && rm -f "
                + p
                + " && set -C && printf '%s' '"
                + base64
                + "' | base64 -d > "
                + p;
    }

    /** Appends a further piece. */
    String next(String runId, String base64) {
        return "umask 077 && printf '%s' '"
                + base64
                + "' | base64 -d >> "
                + ShellQuote.single(commands.promptPath(runId));
    }
}
