package dev.agentbox.reaper;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.journal.ExitSentinel;
import dev.agentbox.run.journal.JournalCommand;
import dev.agentbox.run.journal.JournalProbe;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Decides out of band whether detached runs have finished: the last {@value
 * JournalProbe#WINDOW_BYTES} bytes of each journal, read inside its sandbox, hold the run's exit
 * sentinel (by the nonce kept with the run's record) or not. It never drives a run and never writes
 * anything.
 *
 * <p>Anything it cannot answer is {@link Unknown}, never finished: no sandbox key, no instance
 * record, a provider this server does not run, a sandbox or journal that is gone, a probe command
 * that failed. Runs sharing a sandbox are probed by one exec (at most {@value #BATCH} journals
 * each), so a sweep costs one exec per sandbox, not per run; the journals are looked for in that
 * sandbox's journal directory ({@link SandboxHandle#journalDirectory()}).
 */
final class RunExitProbe {

    private static final Logger LOG = Logger.getLogger(RunExitProbe.class.getName());
    static final int BATCH = 100;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A probe's answer for one run. */
    public sealed interface Probe permits Finished, Producing, Unknown {}

    /** The journal holds the run's exit sentinel. */
    public record Finished(int exitCode) implements Probe {}

    /** The journal exists and has no sentinel (yet). */
    public record Producing() implements Probe {}

    /** The probe could not tell; {@code reason} says why. */
    public record Unknown(String reason) implements Probe {}

    private final SandboxInstanceStore instances;
    private final Function<String, Optional<SandboxProvider>> providers;
    private final Executor executor;
    private final int parallelism;
    private final Duration execTimeout;

    /**
     * Deadline of one probe exec, enforced by the provider in Java: a sandbox that stalls its
     * {@code tail} or {@code base64} gives its runs {@link Unknown} after this, and the sweep goes
     * on.
     */
    public static final Duration EXEC_TIMEOUT = Duration.ofSeconds(30);

    /** A probe that visits one sandbox at a time. */
    public RunExitProbe(
            SandboxInstanceStore instances, Function<String, Optional<SandboxProvider>> providers) {
        this(instances, providers, null, 1);
    }

    /** A probe that visits up to {@code parallelism} sandboxes at once on {@code executor}. */
    public RunExitProbe(
            SandboxInstanceStore instances,
            Function<String, Optional<SandboxProvider>> providers,
            Executor executor,
            int parallelism) {
        this(instances, providers, executor, parallelism, EXEC_TIMEOUT);
    }

    /** As above, with the deadline of each probe exec. */
    public RunExitProbe(
            SandboxInstanceStore instances,
            Function<String, Optional<SandboxProvider>> providers,
            Executor executor,
            int parallelism,
            Duration execTimeout) {
        this.instances = instances;
        this.providers = providers;
        this.executor = executor;
        this.parallelism = parallelism;
        this.execTimeout = execTimeout;
    }

    /** Probes every run; the map has an answer for each. Never throws. */
    public Map<RunRef, Probe> probe(List<RunRecordView> runs) {
        Map<RunRef, Probe> out = new ConcurrentHashMap<>();
        Map<String, List<RunRecordView>> bySandbox = new LinkedHashMap<>();
        for (RunRecordView run : runs) {
            if (run.sandboxKey().isEmpty()) {
                out.put(run.ref(), new Unknown("the run has no sandbox"));
            } else {
                bySandbox
                        .computeIfAbsent(
                                run.tenant() + "\n" + run.sandboxKey().get(),
                                k -> new ArrayList<>())
                        .add(run);
            }
        }
        Bounded.map(
                List.copyOf(bySandbox.values()),
                group -> {
                    try {
                        probeSandbox(group, out);
                    } catch (RuntimeException e) {
                        LOG.log(Level.FINE, "probe failed", e);
                        group.forEach(
                                r -> out.putIfAbsent(r.ref(), new Unknown("probe failed: " + e)));
                    }
                    return group;
                },
                executor,
                parallelism);
        return out;
    }

    private void probeSandbox(List<RunRecordView> runs, Map<RunRef, Probe> out) {
        RunRecordView first = runs.get(0);
        Optional<SandboxInstance> instance =
                instances.find(first.tenant(), first.sandboxKey().orElseThrow());
        if (instance.isEmpty()) {
            runs.forEach(r -> out.put(r.ref(), new Unknown("no instance record for the sandbox")));
            return;
        }
        Optional<SandboxProvider> provider = providers.apply(instance.get().provider());
        if (provider.isEmpty()) {
            runs.forEach(
                    r ->
                            out.put(
                                    r.ref(),
                                    new Unknown(
                                            "provider "
                                                    + instance.get().provider()
                                                    + " is not enabled here")));
            return;
        }
        Optional<SandboxHandle> handle = provider.get().resume(instance.get().providerSandboxId());
        if (handle.isEmpty()) {
            runs.forEach(r -> out.put(r.ref(), new Unknown("the sandbox is gone")));
            return;
        }
        JournalCommand commands = JournalCommand.of(handle.get());
        for (int from = 0; from < runs.size(); from += BATCH) {
            List<RunRecordView> batch = runs.subList(from, Math.min(runs.size(), from + BATCH));
            String boundary = newBoundary();
            ExecResult r =
                    handle.get()
                            .process()
                            .exec(
                                    command(commands, batch, boundary),
                                    ProcessOptions.defaults().withTimeout(execTimeout));
            if (r.exitCode() != 0) {
                String reason = "probe exited " + r.exitCode() + ": " + r.stderr().strip();
                batch.forEach(run -> out.put(run.ref(), new Unknown(reason)));
                continue;
            }
            parse(batch, r.stdout(), boundary, out);
        }
    }

    /**
     * One stream for the whole batch, base64-encoded once: per journal a header line {@code
     * <boundary> <i> ok|missing} and then its last bytes. The boundary starts with a newline the
     * command itself writes and carries a random token chosen per probe, so no journal content can
     * pass for a header. Only {@code tail} is spawned per journal ({@code [}, {@code printf} are
     * shell builtins) — the probe's cost is process starts.
     */
    static String command(JournalCommand commands, List<RunRecordView> batch, String boundary) {
        StringBuilder sh = new StringBuilder("{ ");
        for (int i = 0; i < batch.size(); i++) {
            String j = ShellQuote.single(commands.journalPath(batch.get(i).runId()));
            sh.append("if [ -f ")
                    .append(j)
                    .append(" ]; then printf '\\n%s %d ok\\n' '")
                    .append(boundary)
                    .append("' ")
                    .append(i)
                    .append("; tail -c ")
                    .append(JournalProbe.WINDOW_BYTES)
                    .append(' ')
                    .append(j)
                    .append(" 2>/dev/null; else printf '\\n%s %d missing\\n' '")
                    .append(boundary)
                    .append("' ")
                    .append(i)
                    .append("; fi; ");
        }
        return sh.append("} | base64").toString();
    }

    static String newBoundary() {
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        return "--agentbox-probe-" + HexFormat.of().formatHex(token);
    }

    static void parse(
            List<RunRecordView> batch, String stdout, String boundary, Map<RunRef, Probe> out) {
        byte[] all = Base64.getMimeDecoder().decode(stdout.strip());
        // Every record starts with "\n<boundary> " (the newline is the command's own, so a
        // journal window that does not end in one stays exact).
        byte[] marker = ("\n" + boundary + " ").getBytes(StandardCharsets.US_ASCII);
        Map<Integer, byte[]> tails = new HashMap<>();
        Set<Integer> missing = new HashSet<>();
        int at = startsWith(all, 0, marker) ? 0 : -1;
        int headerFrom = marker.length;
        while (at >= 0) {
            int lineEnd = indexOf(all, (byte) '\n', headerFrom);
            if (lineEnd < 0) {
                break;
            }
            String[] header =
                    new String(all, headerFrom, lineEnd - headerFrom, StandardCharsets.US_ASCII)
                            .split(" ");
            int next = indexOf(all, marker, lineEnd + 1);
            int dataEnd = next < 0 ? all.length : next;
            int index = Integer.parseInt(header[0]);
            if (header.length > 1 && header[1].equals("ok")) {
                tails.put(index, java.util.Arrays.copyOfRange(all, lineEnd + 1, dataEnd));
            } else {
                missing.add(index);
            }
            at = next;
            headerFrom = next + marker.length;
        }
        for (int i = 0; i < batch.size(); i++) {
            RunRecordView run = batch.get(i);
            byte[] window = tails.get(i);
            if (window == null) {
                out.put(
                        run.ref(),
                        new Unknown(
                                missing.contains(i)
                                        ? "no journal in the sandbox"
                                        : "the probe returned nothing for it"));
                continue;
            }
            JournalProbe.Result result = JournalProbe.probe(window, ExitSentinel.of(run.journal()));
            out.put(
                    run.ref(),
                    result instanceof JournalProbe.Finished f
                            ? new Finished(f.exitCode())
                            : new Producing());
        }
    }

    private static boolean startsWith(byte[] bytes, int from, byte[] prefix) {
        if (bytes.length - from < prefix.length) {
            return false;
        }
        for (int k = 0; k < prefix.length; k++) {
            if (bytes[from + k] != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static int indexOf(byte[] bytes, byte[] needle, int from) {
        for (int i = Math.max(0, from); i <= bytes.length - needle.length; i++) {
            if (startsWith(bytes, i, needle)) {
                return i;
            }
        }
        return -1;
    }
}
