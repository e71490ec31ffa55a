package dev.agentbox.run.journal;

import dev.agentbox.run.journal.JournalReaderOptions.Mode;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.logging.Logger;

/**
 * Reads a run's journal back as complete lines, for a driver loop that pulls with {@link #poll}.
 *
 * <p>Modes: <b>follow</b> (the sandbox's own file follow when it has one — pushed over the sandbox
 * channel — else {@code tail -c +N -f} spawned in the sandbox, killed on {@link #close}) when the
 * provider's processes are killable, else <b>poll</b> (a bounded {@code tail -c +N | base64} exec
 * every 250 ms); {@link JournalReaderOptions#mode()} can force poll anywhere. See {@link
 * PushSource} and {@link FollowSource} for follow mode (pushed by the sandbox's own file follow,
 * else a {@code tail} process whose text is re-encoded to count bytes).
 *
 * <p>Invariants, both modes:
 *
 * <ul>
 *   <li>Only complete lines are delivered, in journal order, each once (JN-06).
 *   <li>{@link #position()} is the byte offset just past the last delivered line (or the sentinel):
 *       a new reader opened there continues without gap or repeat (JN-03).
 *   <li>The first valid {@link ExitSentinel} ends the journal: the batch that reaches it carries
 *       its exit code, nothing after it is delivered, and the reader is then finished (later polls
 *       return no lines and the same exit code). Forged sentinels are ordinary lines.
 *   <li>A stream that ends without the sentinel — the {@code tail} exited, an exec failed because
 *       the sandbox is gone, the journal file vanished, or the writer was found dead after a
 *       silence — first gets one last bounded read (it may hold the sentinel), then fails with
 *       {@link JournalEndedWithoutSentinelException}. Lines complete before that are still
 *       delivered: the failure is thrown by the next poll.
 *   <li>A journal read from byte 0 whose first byte has not arrived within the first-byte bound,
 *       and whose writer is then proven not running, fails with {@link JournalStalledException}:
 *       the agent never started. A writer that is there may stay silent for as long as the run
 *       allows. Once a byte has arrived, the writer was seen, or when reading from an offset &gt;
 *       0, silence alone never fails the read: only a writer proven dead does.
 *   <li>Failures are sticky: every later poll throws the same exception.
 *   <li>A line longer than the line cap is delivered truncated ({@link JournalLine#truncated()}),
 *       never held whole: memory per reader is bounded.
 * </ul>
 *
 * One thread polls; {@link #close} may be called from any thread, is idempotent, and makes a
 * waiting poll return.
 */
public final class JournalReader implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(JournalReader.class.getName());

    /**
     * What one poll delivered.
     *
     * @param lines complete lines, in order (possibly none)
     * @param exitCode present once the sentinel has been read: the agent's exit status
     */
    public record Batch(List<JournalLine> lines, OptionalInt exitCode) {

        public Batch {
            lines = List.copyOf(lines);
        }

        /** The sentinel has been read: no more lines will come. */
        public boolean finished() {
            return exitCode.isPresent();
        }
    }

    private final SandboxHandle handle;
    private final String runId;
    private final JournalReaderOptions options;
    private final JournalFiles files;
    private final Mode mode;
    private final ByteSource source;
    private final LineAssembler lines;
    private final long openedNanos;

    /** Offset just past the last byte fed to {@link #lines}: where the final read resumes. */
    private long consumed;

    private boolean started;

    /** The writer was found alive past the first-byte bound: silence is no stall any more. */
    private boolean writerSeen;

    private long lastByteNanos;
    private long lastProbeNanos;
    private RuntimeException failure;
    private volatile boolean closed;

    private JournalReader(
            SandboxHandle handle,
            JournalId journal,
            long fromOffset,
            JournalReaderOptions options,
            boolean journalSeen) {
        if (fromOffset < 0) {
            throw new IllegalArgumentException("fromOffset must not be negative: " + fromOffset);
        }
        String runId = journal.runId();
        this.handle = handle;
        this.runId = runId;
        this.options = options;
        this.files = new JournalFiles(JournalCommand.of(handle));
        this.mode = resolveMode(handle, options.mode());
        this.lines =
                new LineAssembler(ExitSentinel.of(journal), fromOffset, options.maxLineBytes());
        this.consumed = fromOffset;
        this.started = fromOffset > 0;
        this.openedNanos = System.nanoTime();
        this.lastByteNanos = openedNanos;
        this.lastProbeNanos = openedNanos;
        this.source =
                mode == Mode.FOLLOW
                        ? new PushSource(
                                handle,
                                files.commands().journalPath(runId),
                                fromOffset,
                                options.pollInterval(),
                                from ->
                                        new FollowSource(
                                                handle,
                                                runId,
                                                from,
                                                files,
                                                options.pollInterval(),
                                                options.maxBufferedBytes(),
                                                journalSeen))
                        : new PollSource(handle, runId, fromOffset, files, options.pollInterval());
    }

    /** A reader with the default options (auto mode, 10 s first-byte bound). */
    public static JournalReader open(SandboxHandle handle, JournalId journal, long fromOffset) {
        return open(handle, journal, fromOffset, JournalReaderOptions.defaults());
    }

    /**
     * Opens a reader of {@code journal} from byte {@code fromOffset}; only a sentinel with the
     * journal's own nonce ends it. Nothing is started in the sandbox until the first {@link #poll}.
     *
     * @throws IllegalArgumentException for follow mode on a provider without background or killable
     *     processes
     */
    public static JournalReader open(
            SandboxHandle handle,
            JournalId journal,
            long fromOffset,
            JournalReaderOptions options) {
        return new JournalReader(handle, journal, fromOffset, options, false);
    }

    /**
     * A reader, with the default options, of a journal the caller has just seen exist (journals are
     * never removed while their run lives): the first read starts following it without checking for
     * it again.
     */
    public static JournalReader openSeen(SandboxHandle handle, JournalId journal, long fromOffset) {
        return openSeen(handle, journal, fromOffset, JournalReaderOptions.defaults());
    }

    /** {@link #openSeen(SandboxHandle, JournalId, long)} with {@code options}. */
    public static JournalReader openSeen(
            SandboxHandle handle,
            JournalId journal,
            long fromOffset,
            JournalReaderOptions options) {
        return new JournalReader(handle, journal, fromOffset, options, true);
    }

    private static Mode resolveMode(SandboxHandle handle, Mode requested) {
        boolean canFollow = handle.capabilities().canFollow();
        return switch (requested) {
            case AUTO -> canFollow ? Mode.FOLLOW : Mode.POLL;
            case POLL -> Mode.POLL;
            case FOLLOW -> {
                if (!canFollow) {
                    throw new IllegalArgumentException(
                            "follow mode needs background and killable processes; provider "
                                    + handle.provider()
                                    + " lacks one");
                }
                yield Mode.FOLLOW;
            }
        };
    }

    /** {@link Mode#FOLLOW} or {@link Mode#POLL}: how this reader actually reads. */
    public Mode mode() {
        return mode;
    }

    /**
     * Waits up to {@code maxWait} for complete lines and returns as soon as there are some (or the
     * sentinel), else an empty batch when the time is up.
     *
     * @throws JournalEndedWithoutSentinelException the stream ended without the sentinel
     * @throws JournalStalledException no first byte within the first-byte bound
     * @throws IllegalStateException the reader was closed
     */
    public Batch poll(Duration maxWait) {
        if (failure != null) {
            throw failure;
        }
        if (lines.finished()) {
            return new Batch(List.of(), lines.exitCode());
        }
        requireOpen();
        List<JournalLine> out = new ArrayList<>();
        long deadline = System.nanoTime() + Math.max(0, maxWait.toNanos());
        while (true) {
            long now = System.nanoTime();
            long wait = Math.min(Math.max(0, deadline - now), options.pollInterval().toNanos());
            ByteSource.Fetch f = source.next(Duration.ofNanos(wait));
            requireOpen();
            feed(f.bytes(), out);
            if (lines.finished()) {
                source.close();
                return new Batch(out, lines.exitCode());
            }
            if (f.ended()) {
                return endOfStream(out, f.reason(), f.cause());
            }
            now = System.nanoTime();
            if (f.missing() && started) {
                return endOfStream(out, "the journal file is gone", Optional.empty());
            }
            if (!started
                    && !writerSeen
                    && now - openedNanos >= options.firstByteBound().toNanos()) {
                // Silence alone is no stall: an agent may run a test suite or wait on a long first
                // model call before it prints anything. Only a journal nobody writes is stalled.
                lastProbeNanos = now;
                if (WriterProbe.probe(handle, files.commands(), runId)
                        == WriterProbe.Liveness.DEAD) {
                    return neverStarted(out, f.missing());
                }
                writerSeen = true;
            }
            if ((started || writerSeen)
                    && now - lastByteNanos >= probeNanos()
                    && now - lastProbeNanos >= probeNanos()) {
                lastProbeNanos = now;
                if (WriterProbe.probe(handle, files.commands(), runId)
                        == WriterProbe.Liveness.DEAD) {
                    return endOfStream(
                            out, "the journal's writer is no longer running", Optional.empty());
                }
            }
            if (!out.isEmpty() || now >= deadline || Thread.currentThread().isInterrupted()) {
                return new Batch(out, OptionalInt.empty());
            }
        }
    }

    /**
     * Past the first-byte bound with no writer: one last read (the writer may have printed its
     * sentinel and exited between our last read and the probe), else the journal is stalled.
     */
    private Batch neverStarted(List<JournalLine> out, boolean missing) {
        boolean exists = !missing && exists();
        if (exists) {
            try {
                feed(files.readFrom(handle, runId, consumed, PollSource.CHUNK_BYTES).bytes(), out);
            } catch (RuntimeException e) {
                LOG.fine("journal of run " + runId + ": last read before stalling failed: " + e);
            }
            if (lines.finished()) {
                source.close();
                return new Batch(out, lines.exitCode());
            }
            if (started) {
                return endOfStream(
                        out, "the journal's writer is no longer running", Optional.empty());
            }
        }
        return fail(out, new JournalStalledException(runId, options.firstByteBound(), exists));
    }

    private long probeNanos() {
        return options.writerProbeAfter().toNanos();
    }

    private boolean exists() {
        try {
            return files.exists(handle, runId);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void feed(byte[] bytes, List<JournalLine> out) {
        if (bytes.length == 0) {
            return;
        }
        started = true;
        lastByteNanos = System.nanoTime();
        consumed += bytes.length;
        long before = lines.truncatedLines();
        out.addAll(lines.feed(bytes));
        if (lines.truncatedLines() > before) {
            LOG.warning(
                    "journal of run "
                            + runId
                            + ": "
                            + (lines.truncatedLines() - before)
                            + " line(s) longer than "
                            + options.maxLineBytes()
                            + " bytes delivered truncated");
        }
    }

    /**
     * The stream is over: one last bounded read from where we are (the tail may have missed the
     * very end, or the writer finished between our last read and its death), then either the
     * sentinel's batch or the failure.
     */
    private Batch endOfStream(List<JournalLine> out, String reason, Optional<Throwable> cause) {
        source.close();
        Optional<Throwable> why = cause;
        String because = reason;
        try {
            while (!lines.finished()) {
                JournalFiles.Read r =
                        files.readFrom(handle, runId, consumed, PollSource.CHUNK_BYTES);
                feed(r.bytes(), out);
                if (r.bytes().length < PollSource.CHUNK_BYTES) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            if (why.isEmpty()) {
                why = Optional.of(e);
                because = because + "; the last read failed: " + e.getMessage();
            }
        }
        if (lines.finished()) {
            return new Batch(out, lines.exitCode());
        }
        return fail(
                out,
                new JournalEndedWithoutSentinelException(
                        lines.position(), lines.pendingBytes(), because, why.orElse(null)));
    }

    /**
     * Records a sticky failure; lines already complete are delivered first, the failure next time.
     */
    private Batch fail(List<JournalLine> out, RuntimeException e) {
        failure = e;
        source.close();
        if (!out.isEmpty()) {
            return new Batch(out, OptionalInt.empty());
        }
        throw e;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("journal reader of run " + runId + " is closed");
        }
    }

    /** Byte offset just past the last delivered line (or the sentinel). */
    public long position() {
        return lines.position();
    }

    /** Stops reading; in follow mode kills the in-sandbox {@code tail} and waits for that. */
    @Override
    public void close() {
        closed = true;
        source.close();
    }
}
