package dev.agentbox.run.journal;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.time.Duration;

/**
 * Asks the sandbox whether the process writing a journal (the journaled shell started by {@link
 * JournalLauncher}) is still alive, by scanning {@code /proc/<pid>/cmdline} for a process whose
 * command line holds both file paths of the run — only the journaled form (and, for an instant,
 * {@code rm} of {@link JournalCommand#delete}) does; {@code tail} and the read commands name the
 * journal only.
 *
 * <p>This is what keeps a reader from waiting forever on a journal whose writer died without
 * writing the sentinel while the stream itself stays open (a {@code tail -f} outlives the writer; a
 * poll never "ends"). It is only ever used to end a read early when the answer is {@link
 * Liveness#DEAD}; {@link Liveness#UNKNOWN} (no {@code /proc}, exec trouble) counts as alive, so an
 * uncertain probe never cuts off a running agent.
 *
 * <p>The paths include the sandbox's journal directory: on a host that sandboxes of several tenants
 * share, another tenant's live run with the same runId writes under another directory and must not
 * pass for this run's writer.
 *
 * <p>The script must not find itself: its own text names the directory and the encoded run name
 * once each, apart, and builds the two paths from variables, so its command line never contains
 * {@code <dir>/<enc>.ndjson}.
 */
final class WriterProbe {

    enum Liveness {
        ALIVE,
        DEAD,
        UNKNOWN
    }

    /**
     * A sandbox that stalls the scan answers {@link Liveness#UNKNOWN} after this (counted as
     * alive).
     */
    static final Duration EXEC_TIMEOUT = Duration.ofSeconds(10);

    private WriterProbe() {}

    static Liveness probe(SandboxHandle handle, JournalCommand commands, String runId) {
        String enc = JournalNames.encode(runId);
        // The writer's command line holds each path as the journaled form quoted it, so look for
        // the directory as written there (it differs from the plain path only if it has a quote).
        String quoted = ShellQuote.single(commands.dir() + "/");
        String dirAsWritten = quoted.substring(1, quoted.length() - 1);
        // One tr per process: grep cannot narrow the scan, BusyBox grep stops reading a
        // cmdline at its first NUL. A zombie's cmdline is empty and never matches.
        String script =
                "[ -r /proc/self/cmdline ] || { echo unknown; exit 0; }; "
                        + "d="
                        + ShellQuote.single(dirAsWritten)
                        + "; e="
                        + ShellQuote.single(enc)
                        + "; "
                        + "for f in /proc/[0-9]*/cmdline; do "
                        + "c=$(tr '\\000' ' ' 2>/dev/null < \"$f\"); "
                        + "case \"$c\" in *\"$d$e\".ndjson*\"$d$e\".err*) echo alive; exit 0;; esac; done; echo dead";
        try {
            ExecResult r =
                    handle.process()
                            .exec(script, ProcessOptions.defaults().withTimeout(EXEC_TIMEOUT));
            return switch (r.stdout().strip()) {
                case "alive" -> Liveness.ALIVE;
                case "dead" -> Liveness.DEAD;
                default -> Liveness.UNKNOWN;
            };
        } catch (RuntimeException e) {
            return Liveness.UNKNOWN;
        }
    }
}
