package dev.agentbox.reaper;

import dev.agentbox.platform.LogText;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.journal.JournalCommand;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The journal directory of a sandbox ({@link SandboxHandle#journalDirectory()}), seen through
 * {@code exec}: one command lists it, one command per batch of runs deletes. Only the names {@link
 * JournalCommand} builds from a runId are ever deleted, so a listed name can never steer {@code rm}
 * anywhere else. Stateless: each call works in the directory of the handle it is given.
 */
final class SandboxJournals {

    private static final Logger LOG = Logger.getLogger(SandboxJournals.class.getName());

    /**
     * The files of one run (any of its journal, err and prompt files), and the newest mtime among
     * them.
     */
    record RunJournal(String runId, Instant newestModified) {}

    /** A listing split into decodable runs (oldest first) and names that stand for no runId. */
    record Listing(List<RunJournal> runs, List<String> undecodable) {}

    /** A sandbox that hangs must not hang the prune. */
    static final Duration EXEC_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Runs per {@code rm} command: keeps one {@code sh -c} argument well below Linux's 128 KiB
     * per-argument limit.
     */
    static final int DELETE_BATCH = 50;

    private static final Pattern LINE = Pattern.compile("(\\d{1,18}) (.+)");
    private static final Pattern FAILED = Pattern.compile("failed (\\d+)");
    private static final String DONE = "prune-batch-done";

    /**
     * {@code mtimeEpochSeconds name} of every regular file in the journal directory. The glob
     * includes {@code .*} because the encoding keeps {@code .}: a runId starting with a dot has a
     * dot-file journal. {@code [ -f ]} skips {@code .}, {@code ..}, directories and the unexpanded
     * pattern of an empty directory; a file removed between glob and stat (a driver finishing) only
     * costs a line on stderr. A missing directory lists as empty.
     */
    static String listCommand(JournalCommand commands) {
        return "cd "
                + ShellQuote.single(commands.dir())
                + " 2>/dev/null || exit 0; "
                + "for f in .* *; do [ -f \"$f\" ] && stat -c '%Y %n' -- \"$f\"; done; exit 0";
    }

    /**
     * Lists the journal directory.
     *
     * @throws IllegalStateException when the listing command failed: the directory's content is
     *     unknown
     */
    Listing list(SandboxHandle handle) {
        JournalCommand commands = JournalCommand.of(handle);
        ExecResult r =
                handle.process()
                        .exec(
                                listCommand(commands),
                                ProcessOptions.defaults().withTimeout(EXEC_TIMEOUT));
        if (r.exitCode() != 0) {
            throw new IllegalStateException(
                    "listing "
                            + commands.dir()
                            + " failed (exit "
                            + r.exitCode()
                            + "): "
                            + tail(r.stderr()));
        }
        return parse(r.stdout());
    }

    static Listing parse(String stdout) {
        Map<String, Instant> newest = new LinkedHashMap<>();
        List<String> undecodable = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                // only a foreign name with a line break can do this; its pieces are not journals
                continue;
            }
            Instant modified = Instant.ofEpochSecond(Long.parseLong(m.group(1)));
            String name = m.group(2);
            Optional<String> runId = JournalNames.decodeFileName(name);
            if (runId.isEmpty()) {
                undecodable.add(name);
            } else {
                newest.merge(runId.get(), modified, (a, b) -> a.isAfter(b) ? a : b);
            }
        }
        List<RunJournal> runs = new ArrayList<>();
        newest.forEach((runId, modified) -> runs.add(new RunJournal(runId, modified)));
        // oldest first, so that a deletion budget that runs out keeps the youngest journals
        runs.sort(
                Comparator.comparing(RunJournal::newestModified).thenComparing(RunJournal::runId));
        undecodable.sort(Comparator.naturalOrder());
        return new Listing(runs, undecodable);
    }

    /**
     * Deletes the files of every run — journal, err and prompt ({@code rm -f}: a file already gone
     * is fine). Never throws.
     *
     * @return the runIds whose deletion failed or whose outcome is unknown (the exec failed or did
     *     not finish)
     */
    Set<String> delete(SandboxHandle handle, List<String> runIds) {
        Set<String> failed = new HashSet<>();
        for (int from = 0; from < runIds.size(); from += DELETE_BATCH) {
            List<String> batch = runIds.subList(from, Math.min(runIds.size(), from + DELETE_BATCH));
            failed.addAll(deleteBatch(handle, batch));
        }
        return failed;
    }

    private List<String> deleteBatch(SandboxHandle handle, List<String> batch) {
        JournalCommand commands = JournalCommand.of(handle);
        StringBuilder script = new StringBuilder();
        for (int i = 0; i < batch.size(); i++) {
            script.append(commands.delete(batch.get(i)))
                    .append(" || echo 'failed ")
                    .append(i)
                    .append("'\n");
        }
        script.append("echo ").append(DONE);
        ExecResult r;
        try {
            r =
                    handle.process()
                            .exec(
                                    script.toString(),
                                    ProcessOptions.defaults().withTimeout(EXEC_TIMEOUT));
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "Deleting "
                            + batch.size()
                            + " journal(s) in sandbox "
                            + handle.id()
                            + " failed: "
                            + e);
            return batch;
        }
        List<String> lines = r.stdout().lines().toList();
        if (!lines.contains(DONE)) {
            LOG.warning(
                    "Deleting "
                            + batch.size()
                            + " journal(s) in sandbox "
                            + handle.id()
                            + " did not finish (exit "
                            + r.exitCode()
                            + "): "
                            + tail(r.stderr()));
            return batch;
        }
        List<String> failed = new ArrayList<>();
        for (String line : lines) {
            Matcher m = FAILED.matcher(line);
            if (m.matches()) {
                failed.add(batch.get(Integer.parseInt(m.group(1))));
            }
        }
        if (!failed.isEmpty()) {
            LOG.warning(
                    "Could not delete the journals of "
                            + failed.size()
                            + " run(s) in sandbox "
                            + handle.id()
                            + ": "
                            + tail(r.stderr()));
        }
        return failed;
    }

    /**
     * The end of a sandbox's stderr for a log line: the sandbox writes it, so it is quoted (no
     * forged lines).
     */
    private static String tail(String s) {
        String t = s.strip();
        return LogText.quote(
                t.length() <= LogText.MAX_CHARS
                        ? t
                        : "…" + t.substring(t.length() - LogText.MAX_CHARS + 1));
    }
}
