package dev.agentbox.run;

import dev.agentbox.api.ProblemException;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.ChunkType;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.JournalEndedWithoutSentinelException;
import dev.agentbox.run.journal.JournalLauncher;
import dev.agentbox.run.journal.JournalLine;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.run.journal.JournalStalledException;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import dev.agentbox.sandbox.Sandbox;
import dev.agentbox.sandbox.SandboxHandle;
import dev.agentbox.sandbox.SandboxSpec;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Drives one run on this server: claims it, makes or opens its sandbox, starts the agent
 * journaled, reads the journal, translates lines to chunks and appends them through the
 * fenced path, then finishes the record.
 *
 * <p>The driver is total: every way a run can go wrong — the agent's non-zero exit, a
 * sandbox killed mid-run, a journal that ends without its sentinel or never starts, a
 * failed setup, a cancel — ends as one terminal chunk plus a terminal record; nothing
 * escapes that leaves a run {@code running}. The one exception is a stale epoch: another
 * driver owns the run, so this one stops writing at once and forever (the latch).
 */
public final class RunDriver implements Runnable {

    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());
    private static final Duration POLL = Duration.ofMillis(250);
    private static final long CANCEL_CHECK_MS = 1000;
    static final int STDERR_TAIL = 1000;

    private final RunContext ctx;
    private final RunRecordView run;
    private final Optional<SandboxSpec> sandboxSpec;
    private final String agentCommand;
    private volatile boolean abortRequested;
    private long epoch;
    private Optional<Sandbox> sandbox = Optional.empty();
    private String sandboxKey;

    public RunDriver(RunContext ctx, RunRecordView run, Optional<SandboxSpec> sandboxSpec, String agentCommand) {
        this.ctx = ctx;
        this.run = run;
        this.sandboxSpec = sandboxSpec;
        this.agentCommand = agentCommand;
        this.sandboxKey = run.sandboxKey().orElse(null);
    }

    public RunRef ref() {
        return run.ref();
    }

    /** Asks the driver to stop the agent and end the run aborted (in-process half of a cancel). */
    public void abort() {
        // No interrupt: an interrupted JDBC call can break the connection (Derby); the
        // read loop sees the flag within one poll interval.
        abortRequested = true;
    }

    @Override
    public void run() {
        String label = "run " + run.runId();
        try {
            var claimed = ctx.claims().claim(run.ref(), ctx.nodeId());
            if (claimed.isEmpty()) {
                LOG.info(label + ": not claimed (terminal or unknown)");
                return;
            }
            epoch = claimed.getAsLong();
            drive(label);
        } catch (StaleEpochException e) {
            LOG.warning(label + ": another driver took over (epoch " + epoch + " is stale); this driver stops writing");
        } catch (RuntimeException | Error e) {
            LOG.log(Level.SEVERE, label + ": driver failed unexpectedly", e);
            failQuietly(label, RunError.of("Run driver failed: " + e, "internal-error"));
        } finally {
            ctx.hub().signal(run.ref());
        }
    }

    private void drive(String label) {
        HarnessTranslator translator = run.harness().translator(run.runId(), run.threadId(), ctx.clock()::millis);
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
        List<JsonObject> opening = new ArrayList<>();
        opening.add(chunks.custom("run.accepted", JsonValue.EMPTY_JSON_OBJECT));
        opening.addAll(translator.onStart());
        append(opening);

        SandboxHandle handle;
        try {
            handle = openSandbox(label);
        } catch (ProblemException e) {
            finish(label, List.of(chunks.runError(e.detail(), e.code())), RunStatus.FAILED, Optional.of(RunError.of(e.detail(), e.code())));
            return;
        }
        if (cancelled()) {
            abortRun(label, chunks);
            return;
        }
        ctx.launcher().start(handle, agentCommand, run.runId());
        LOG.info(label + ": agent started in " + handle.id());

        long lastCancelCheck = System.nanoTime();
        try (JournalReader reader = ctx.readers().open(handle, run.runId(), 0)) {
            while (true) {
                if (abortRequested || ((System.nanoTime() - lastCancelCheck) / 1_000_000 >= CANCEL_CHECK_MS && cancelled())) {
                    abortRun(label, chunks);
                    return;
                }
                if ((System.nanoTime() - lastCancelCheck) / 1_000_000 >= CANCEL_CHECK_MS) {
                    lastCancelCheck = System.nanoTime();
                }
                JournalReader.Batch batch;
                try {
                    batch = reader.poll(POLL);
                } catch (RuntimeException e) {
                    if (abortRequested) {
                        abortRun(label, chunks);
                        return;
                    }
                    throw e;
                }
                List<JsonObject> out = new ArrayList<>();
                for (JournalLine line : batch.lines()) {
                    out.addAll(translator.onLine(line.text()));
                }
                if (batch.exitCode().isPresent()) {
                    int code = batch.exitCode().getAsInt();
                    out.addAll(translator.onExit(code, ctx.launcher().errTail(handle, run.runId(), STDERR_TAIL)));
                    translator.usage().ifPresent(u -> ctx.runs().setUsage(run.ref(), Optional.of(u)));
                    JsonObject last = out.get(out.size() - 1);
                    boolean ok = ChunkType.RUN_FINISHED.name().equals(last.getString("type"));
                    Optional<RunError> error = ok ? Optional.empty()
                            : Optional.of(new RunError(last.getString("message", "Agent failed"), Optional.ofNullable(last.getString("code", null))));
                    finish(label, out, ok ? RunStatus.COMPLETED : RunStatus.FAILED, error);
                    afterFinish(label, handle);
                    return;
                }
                if (!out.isEmpty()) {
                    append(out);
                }
            }
        } catch (JournalStalledException e) {
            finish(label, List.of(chunks.runError(e.getMessage(), "journal-stalled")), RunStatus.FAILED,
                    Optional.of(RunError.of(e.getMessage(), "journal-stalled")));
        } catch (JournalEndedWithoutSentinelException e) {
            String message = "Agent lost: " + e.getMessage();
            finish(label, List.of(chunks.runError(message, "agent-lost")), RunStatus.FAILED, Optional.of(RunError.of(message, "agent-lost")));
        } catch (ProblemException e) {
            // The sandbox went away under the reader (e.g. its container was removed).
            String message = "Sandbox failed during the run: " + e.detail();
            finish(label, List.of(chunks.runError(message, "agent-lost")), RunStatus.FAILED, Optional.of(RunError.of(message, "agent-lost")));
        }
    }

    private SandboxHandle openSandbox(String label) {
        if (sandboxSpec.isPresent()) {
            Sandbox s = ctx.sandboxes().ensure(run.tenant(), sandboxSpec.get()).sandbox();
            sandboxKey = s.instance().key();
            ctx.runs().setSandboxKey(run.ref(), Optional.of(sandboxKey));
            sandbox = Optional.of(s);
            return s.handle();
        }
        Sandbox s = ctx.sandboxes().open(run.tenant(), sandboxKey);
        sandbox = Optional.of(s);
        return s.handle();
    }

    private boolean cancelled() {
        if (abortRequested) {
            return true;
        }
        return ctx.runs().findById(run.ref()).flatMap(RunRecordView::cancelRequested).orElse(false);
    }

    /** Cancel: the sandbox always goes (that also stops the agent), then the run ends aborted. */
    private void abortRun(String label, ChunkFactory chunks) {
        if (sandboxKey != null) {
            try {
                ctx.sandboxes().delete(run.tenant(), sandboxKey);
            } catch (ProblemException e) {
                LOG.info(label + ": sandbox already gone at cancel: " + e.detail());
            }
        }
        String message = "Run was cancelled";
        finish(label, List.of(chunks.runError(message, "aborted")), RunStatus.ABORTED, Optional.of(RunError.of(message, "aborted")));
        LOG.info(label + ": aborted");
    }

    private void afterFinish(String label, SandboxHandle handle) {
        try {
            ctx.launcher().delete(handle, run.runId());
        } catch (RuntimeException e) {
            LOG.info(label + ": journal not deleted (prune will): " + e);
        }
        if (run.destroyOnComplete() && sandboxKey != null) {
            try {
                ctx.sandboxes().delete(run.tenant(), sandboxKey);
            } catch (RuntimeException e) {
                LOG.warning(label + ": destroyOnComplete failed: " + e);
            }
        }
    }

    private void append(List<JsonObject> chunks) {
        ctx.hub().publish(run.ref(), ctx.log().append(run.ref(), epoch, chunks));
    }

    /** Appends the terminal chunk(s), then the terminal record, both fenced by the epoch. */
    private void finish(String label, List<JsonObject> terminal, RunStatus status, Optional<RunError> error) {
        append(terminal);
        var result = ctx.log().finishRun(run.ref(), epoch, status, ctx.clock().instant(), error);
        LOG.info(label + ": " + status.wireName() + " (" + result + ")" + error.map(e -> ": " + e.message()).orElse(""));
    }

    private void failQuietly(String label, RunError error) {
        if (epoch == 0) {
            return;
        }
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                finish(label, List.of(chunks.runError(error.message(), error.code().orElse("internal-error"))), RunStatus.FAILED, Optional.of(error));
                return;
            } catch (StaleEpochException e) {
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, label + ": could not record the failure (attempt " + attempt + "/3)", e);
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
