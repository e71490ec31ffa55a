package dev.agentbox.reaper;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.journal.ExitSentinel;
import dev.agentbox.run.journal.JournalCommand;
import dev.agentbox.run.journal.JournalProbe;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.sandbox.ExecResult;
import dev.agentbox.sandbox.SandboxHandle;
import dev.agentbox.sandbox.SandboxInstance;
import dev.agentbox.sandbox.SandboxInstanceStore;
import dev.agentbox.sandbox.SandboxProvider;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Decides out of band whether detached runs have finished: the last
 * {@value JournalProbe#WINDOW_BYTES} bytes of each journal, read inside its sandbox, hold the
 * run's exit sentinel or not. It never drives a run and never writes anything.
 *
 * <p>Anything it cannot answer is {@link Unknown}, never finished: no sandbox key, no
 * instance record, a provider this server does not run, a sandbox or journal that is gone,
 * a probe command that failed. Runs sharing a sandbox are probed by one exec (at most
 * {@value #BATCH} journals each), so a sweep costs one exec per sandbox, not per run.
 */
public final class RunExitProbe {

    private static final Logger LOG = Logger.getLogger(RunExitProbe.class.getName());
    static final int BATCH = 100;

    /** A probe's answer for one run. */
    public sealed interface Probe permits Finished, Producing, Unknown {
    }

    /** The journal holds the run's exit sentinel. */
    public record Finished(int exitCode) implements Probe {
    }

    /** The journal exists and has no sentinel (yet). */
    public record Producing() implements Probe {
    }

    /** The probe could not tell; {@code reason} says why. */
    public record Unknown(String reason) implements Probe {
    }

    private final SandboxInstanceStore instances;
    private final Function<String, Optional<SandboxProvider>> providers;
    private final JournalCommand commands;
    private final Executor executor;
    private final int parallelism;

    /** A probe that visits one sandbox at a time. */
    public RunExitProbe(SandboxInstanceStore instances, Function<String, Optional<SandboxProvider>> providers, JournalCommand commands) {
        this(instances, providers, commands, null, 1);
    }

    /** A probe that visits up to {@code parallelism} sandboxes at once on {@code executor}. */
    public RunExitProbe(SandboxInstanceStore instances, Function<String, Optional<SandboxProvider>> providers, JournalCommand commands,
            Executor executor, int parallelism) {
        this.instances = instances;
        this.providers = providers;
        this.commands = commands;
        this.executor = executor;
        this.parallelism = parallelism;
    }

    /** Probes every run; the map has an answer for each. Never throws. */
    public Map<RunRef, Probe> probe(List<RunRecordView> runs) {
        Map<RunRef, Probe> out = new ConcurrentHashMap<>();
        Map<String, List<RunRecordView>> bySandbox = new LinkedHashMap<>();
        for (RunRecordView run : runs) {
            if (run.sandboxKey().isEmpty()) {
                out.put(run.ref(), new Unknown("the run has no sandbox"));
            } else {
                bySandbox.computeIfAbsent(run.tenant() + "\n" + run.sandboxKey().get(), k -> new ArrayList<>()).add(run);
            }
        }
        Bounded.map(List.copyOf(bySandbox.values()), group -> {
            try {
                probeSandbox(group, out);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "probe failed", e);
                group.forEach(r -> out.putIfAbsent(r.ref(), new Unknown("probe failed: " + e)));
            }
            return group;
        }, executor, parallelism);
        return out;
    }

    private void probeSandbox(List<RunRecordView> runs, Map<RunRef, Probe> out) {
        RunRecordView first = runs.get(0);
        Optional<SandboxInstance> instance = instances.find(first.tenant(), first.sandboxKey().orElseThrow());
        if (instance.isEmpty()) {
            runs.forEach(r -> out.put(r.ref(), new Unknown("no instance record for the sandbox")));
            return;
        }
        Optional<SandboxProvider> provider = providers.apply(instance.get().provider());
        if (provider.isEmpty()) {
            runs.forEach(r -> out.put(r.ref(), new Unknown("provider " + instance.get().provider() + " is not enabled here")));
            return;
        }
        Optional<SandboxHandle> handle = provider.get().resume(instance.get().providerSandboxId());
        if (handle.isEmpty()) {
            runs.forEach(r -> out.put(r.ref(), new Unknown("the sandbox is gone")));
            return;
        }
        for (int from = 0; from < runs.size(); from += BATCH) {
            List<RunRecordView> batch = runs.subList(from, Math.min(runs.size(), from + BATCH));
            ExecResult r = handle.get().process().exec(command(batch));
            if (r.exitCode() != 0) {
                String reason = "probe exited " + r.exitCode() + ": " + r.stderr().strip();
                batch.forEach(run -> out.put(run.ref(), new Unknown(reason)));
                continue;
            }
            parse(batch, r.stdout(), out);
        }
    }

    /**
     * For each journal a marker line ({@code @i} present, {@code -i} missing; neither character
     * is in the base64 alphabet) followed by the base64 of its tail.
     */
    String command(List<RunRecordView> batch) {
        StringBuilder sh = new StringBuilder();
        for (int i = 0; i < batch.size(); i++) {
            String j = ShellQuote.single(commands.journalPath(batch.get(i).runId()));
            sh.append("if [ -f ").append(j).append(" ]; then echo '@").append(i).append("'; tail -c ")
                    .append(JournalProbe.WINDOW_BYTES).append(' ').append(j).append(" | base64; else echo '-").append(i)
                    .append("'; fi; ");
        }
        return sh.append("true").toString();
    }

    static void parse(List<RunRecordView> batch, String stdout, Map<RunRef, Probe> out) {
        Map<Integer, StringBuilder> tails = new HashMap<>();
        StringBuilder current = null;
        for (String line : stdout.split("\n")) {
            if (line.startsWith("@")) {
                current = new StringBuilder();
                tails.put(Integer.parseInt(line.substring(1).strip()), current);
            } else if (line.startsWith("-")) {
                current = null;
            } else if (current != null) {
                current.append(line.strip());
            }
        }
        for (int i = 0; i < batch.size(); i++) {
            RunRecordView run = batch.get(i);
            StringBuilder tail = tails.get(i);
            if (tail == null) {
                out.put(run.ref(), new Unknown("no journal in the sandbox"));
                continue;
            }
            byte[] window = Base64.getMimeDecoder().decode(tail.toString());
            JournalProbe.Result result = JournalProbe.probe(window, ExitSentinel.forRun(run.runId()));
            out.put(run.ref(), result instanceof JournalProbe.Finished f ? new Finished(f.exitCode()) : new Producing());
        }
    }
}
