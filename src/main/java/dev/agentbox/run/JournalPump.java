package dev.agentbox.run;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.JournalCommand;
import dev.agentbox.run.journal.JournalEndedWithoutSentinelException;
import dev.agentbox.run.journal.JournalLine;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.run.journal.JournalReaderOptions;
import dev.agentbox.run.journal.JournalStalledException;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.logging.Logger;

/**
 * The driver's read-translate-append loop: reads the agent's journal from byte 0, translates its
 * lines to chunks, masks the sandbox's secrets in them and appends them through the fenced {@link
 * DriverWriter}, until the journal's exit sentinel — or until the driver is told to leave or abort,
 * the run passes its maximum duration, or a finalizer runs out of its budget.
 *
 * <p>For a run with {@code fileEvents} it also watches the workspace ({@link RunFileEvents}) and
 * appends the {@code file.changed} chunks due after each batch, on this thread, so they are
 * serialized with the journal's chunks and fenced the same way; a successor starts appending them
 * once its replay has matched the stored log (changes meanwhile wait, merged and bounded); the
 * watcher stops when the loop ends, whatever ended it.
 *
 * <p>Invariants: between polls, abort and leave are seen within one poll interval and a durable
 * cancel within about a second; a finalizer acts on neither a cancel nor the maximum duration (its
 * agent is done); the sandbox is touched while the loop runs, so idle expiry leaves it alone.
 */
final class JournalPump {

    /** The driver's logger: one run's lines read as one story. */
    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());

    private static final Duration POLL = Duration.ofMillis(250);
    private static final long CANCEL_CHECK_MS = 1000;

    /** The longest sealed file events wait for the journal to be read up to their barrier. */
    static final long BARRIER_WAIT_MS = 2000;

    private static final Duration SIZE_TIMEOUT = Duration.ofSeconds(5);

    private final RunContext ctx;
    private final RunRecordView run;
    private final DriverWriter writer;
    private final DriverSignals signals;
    private final RunSandbox sandbox;
    private final RunEnd end;

    /** A finalizer's budget; null for any other driver. */
    private final RunDriver.Finalizing finalizing;

    /** The driver has just seen the journal exist (a successor that waited for it). */
    private final boolean journalSeen;

    /**
     * The sandbox's egress refusals from before the agent started ({@link AgentLaunch}); null for a
     * finalizer, whose agent is done and is refused nothing any more, and without egress.
     */
    private final RunEgressDenials refusals;

    /** What the run's tool bridge and gate reported, to append; null for a run without one. */
    private final RunBridgeEvents bridged;

    JournalPump(
            RunContext ctx,
            RunRecordView run,
            DriverWriter writer,
            DriverSignals signals,
            RunSandbox sandbox,
            RunEnd end,
            RunDriver.Finalizing finalizing,
            boolean journalSeen,
            RunEgressDenials refusals,
            RunBridgeEvents bridged) {
        this.bridged = bridged;
        this.journalSeen = journalSeen;
        this.refusals = refusals;
        this.ctx = ctx;
        this.run = run;
        this.writer = writer;
        this.signals = signals;
        this.sandbox = sandbox;
        this.end = end;
        this.finalizing = finalizing;
    }

    /** Pumps the journal of the agent in {@code handle} until the run ends or is left. */
    void pump(
            String label, SandboxHandle handle, HarnessTranslator translator, ChunkFactory chunks) {
        long lastCancelCheck = System.nanoTime();
        long lastTouch = System.nanoTime();
        boolean firstPoll = true;
        // Keep the sandbox from idle expiry while the agent works in it.
        long touchEveryNs = sandbox.touchEveryNs();
        // A finished journal is read whole with bounded reads; following it would cost a tail
        // process to start and to kill.
        try (JournalReader reader =
                        finalizing != null
                                ? JournalReader.open(
                                        handle,
                                        run.journal(),
                                        0,
                                        JournalReaderOptions.defaults()
                                                .withMode(JournalReaderOptions.Mode.POLL))
                                : journalSeen
                                        ? ctx.readers().openSeen(handle, run.journal(), 0)
                                        : ctx.readers().open(handle, run.journal(), 0);
                // A finalizer's agent is done: nothing changes its workspace any more.
                RunFileEvents files =
                        run.fileEvents() && finalizing == null
                                ? RunFileEvents.watch(label, handle)
                                : null) {
            RunEgressDenials.Reporter report = reporter(label);
            Optional<Barrier> barrier = Optional.empty();
            while (true) {
                if (signals.leaving()) {
                    writer.ending(RunDriver.Ending.LEFT);
                    LOG.info(label + ": server stopping; the run is left running for a successor");
                    return;
                }
                writer.checkLease();
                if (finalizing != null && System.nanoTime() - finalizing.deadlineNanos() > 0) {
                    end.budgetExceeded(label);
                    return;
                }
                if (finalizing == null
                        && (signals.abortRequested()
                                || ((System.nanoTime() - lastCancelCheck) / 1_000_000
                                                >= CANCEL_CHECK_MS
                                        && signals.cancelled()))) {
                    end.cancelled(label, chunks);
                    return;
                }
                if (finalizing == null && RunAbort.pastMaxDuration(run, ctx.clock().instant())) {
                    end.aborted(label, chunks, RunAbort.maxDuration(run));
                    return;
                }
                if ((System.nanoTime() - lastCancelCheck) / 1_000_000 >= CANCEL_CHECK_MS) {
                    lastCancelCheck = System.nanoTime();
                }
                if (System.nanoTime() - lastTouch >= touchEveryNs && sandbox.key().isPresent()) {
                    sandbox.touch();
                    lastTouch = System.nanoTime();
                }
                JournalReader.Batch batch;
                try {
                    // The first poll only starts the reader (a tail in the sandbox): the
                    // redactor's read below then overlaps the tail's start instead of
                    // preceding it — a successor's first chunk comes sooner.
                    batch = reader.poll(firstPoll ? Duration.ZERO : POLL);
                    firstPoll = false;
                } catch (RuntimeException e) {
                    if (signals.abortRequested()) {
                        end.cancelled(label, chunks);
                        return;
                    }
                    throw e;
                }
                List<JsonObject> out = new ArrayList<>();
                for (JournalLine line : batch.lines()) {
                    out.addAll(translator.onLine(line.text()));
                }
                if (batch.exitCode().isPresent()) {
                    if (bridged != null) {
                        writer.emitBridged(RedactedChunks.of(sandbox.redactor(), bridged.drain()));
                    }
                    if (refusals != null) {
                        writer.emitService(
                                RedactedChunks.of(
                                        sandbox.redactor(), refusals.drain(chunks, true, report)));
                    }
                    if (files != null) {
                        // The agent's last changes go before its last lines and the terminal
                        // chunk: nothing of the run is written after that.
                        writer.emitService(
                                RedactedChunks.of(
                                        sandbox.redactor(),
                                        files.drain(chunks, true, writer.outOfBandRoom())));
                    }
                    end.exited(label, handle, translator, batch.exitCode().getAsInt(), out);
                    return;
                }
                writer.emit(RedactedChunks.of(sandbox.redactor(), out));
                if (bridged != null && !writer.replaying()) {
                    writer.emitBridged(RedactedChunks.of(sandbox.redactor(), bridged.drain()));
                }
                if (refusals != null && !writer.replaying()) {
                    writer.emitService(
                            RedactedChunks.of(
                                    sandbox.redactor(), refusals.drain(chunks, false, report)));
                    if (refusals.unrepairable().isPresent()) {
                        end.secretMissing(label, chunks, refusals.unrepairable().get());
                        return;
                    }
                }
                // With no room left before the agent's next line, changes wait (merged per path)
                // without a barrier measured for nothing.
                if (files != null && !writer.replaying() && writer.outOfBandRoom() > 1) {
                    barrier = fileEventsBarrier(handle, reader, files, barrier);
                    if (barrier.isPresent() && barrier.get().reached(reader.position())) {
                        barrier = Optional.empty();
                        writer.emitService(
                                RedactedChunks.of(
                                        sandbox.redactor(),
                                        files.drain(chunks, false, writer.outOfBandRoom())));
                    }
                }
            }
        } catch (JournalStalledException e) {
            end.stalled(label, e);
        } catch (JournalEndedWithoutSentinelException e) {
            end.agentLost(label, e);
        } catch (ProblemException e) {
            end.sandboxFailed(label, e);
        }
    }

    /** Each refused destination: one log line (tenant, sandbox, destination) and the metric. */
    private RunEgressDenials.Reporter reporter(String label) {
        return (host, port, count) -> {
            LOG.warning(
                    label
                            + ": egress refused "
                            + host
                            + ":"
                            + port
                            + (count > 1 ? " (" + count + " times)" : "")
                            + " for tenant "
                            + run.tenant()
                            + ", sandbox "
                            + sandbox.key().orElse("?"));
            ctx.egressCounter().accept("denied", count);
        };
    }

    /**
     * Where the journal must be read to before sealed file events are logged: its size when they
     * were sealed. A change the agent made after printing a line is noticed after that line was
     * written, so the line lies within the size measured after the seal; draining only once the
     * reader has passed that size keeps every such line before the change in the log, however late
     * the journal's bytes reach this server. Bounded: a line still unfinished at the barrier (no
     * newline yet) holds the events back at most {@value #BARRIER_WAIT_MS} ms.
     */
    private Optional<Barrier> fileEventsBarrier(
            SandboxHandle handle,
            JournalReader reader,
            RunFileEvents files,
            Optional<Barrier> barrier) {
        if (barrier.isPresent() || !files.due()) {
            return barrier;
        }
        files.seal();
        return Optional.of(
                new Barrier(
                        journalSize(handle).orElse(reader.position()),
                        System.nanoTime() + BARRIER_WAIT_MS * 1_000_000));
    }

    /** The journal's size in bytes now, or empty when it cannot be measured. */
    private OptionalLong journalSize(SandboxHandle handle) {
        String path = JournalCommand.of(handle).journalPath(run.runId());
        try {
            ExecResult r =
                    handle.process()
                            .exec(
                                    "wc -c < " + ShellQuote.single(path),
                                    ProcessOptions.defaults().withTimeout(SIZE_TIMEOUT));
            return r.exitCode() == 0
                    ? OptionalLong.of(Long.parseLong(r.stdout().strip()))
                    : OptionalLong.empty();
        } catch (RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** Sealed file events wait until the reader is at {@code position}, or until the deadline. */
    private record Barrier(long position, long deadlineNanos) {
        boolean reached(long readerPosition) {
            return readerPosition >= position || System.nanoTime() - deadlineNanos > 0;
        }
    }
}
