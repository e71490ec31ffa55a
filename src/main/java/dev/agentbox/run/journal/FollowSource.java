package dev.agentbox.run.journal;

import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProcess;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Follows the journal with an in-sandbox {@code tail -c +N -f} (a spawned, killable process): bytes
 * arrive as they are written, no exec per read.
 *
 * <p>Byte counting: a {@link SandboxProcess} delivers decoded text, not bytes, so the text is
 * re-encoded as UTF-8. For a valid UTF-8 journal that gives back the exact bytes. Invalid UTF-8
 * arrives as U+FFFD (3 bytes) and shifts every later offset; offsets of such a journal are only
 * approximate (resuming may repeat or skip a few bytes). Takeover always re-reads from byte 0, so
 * the durable log never depends on these offsets being exact.
 *
 * <p>Lifecycle of the {@code tail}: it is spawned only once the journal file exists (a {@code tail
 * -f} of a missing file just exits); {@link #close} kills it and waits for the kill (JN-05). Its
 * exit for any other reason — the container died, the exec stream broke — ends the stream after
 * every byte it delivered has been handed out.
 *
 * <p>Memory: at most {@code maxBuffered} bytes (plus one chunk) wait for the consumer. Beyond that
 * this source stops accepting the {@code tail}'s output, and once the consumer has taken the
 * backlog it kills that {@code tail} and starts a new one at the first byte it did not accept:
 * nothing is lost or repeated (for valid UTF-8), the journal is just read again from there.
 *
 * <p>Threads: output callbacks come from the provider's thread; {@link #next} from the consumer;
 * {@link #close} from anyone. All shared state is guarded by {@code lock}.
 */
final class FollowSource implements ByteSource {

    private static final Logger LOG = Logger.getLogger(FollowSource.class.getName());
    private static final int STDERR_KEEP = 1000;

    private final SandboxHandle handle;
    private final String runId;
    private final JournalFiles files;
    private final Duration pollInterval;
    private final int maxBuffered;
    private final Object lock = new Object();
    private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
    private long queuedBytes;

    /** Absolute offset just past the last byte accepted from a tail: where a new tail starts. */
    private long received;

    private Tail current;
    private boolean closed;

    /** One spawned {@code tail}; its callbacks are ignored once it is stopped or replaced. */
    private final class Tail {
        final SandboxProcess process;
        final StringBuilder stderr = new StringBuilder();

        /** Set when we stop it on purpose (overflow, close): its exit is not the stream's end. */
        boolean stopped;

        boolean exited;
        int exitCode;
        Optional<Throwable> failure = Optional.empty();

        Tail(SandboxProcess process) {
            this.process = process;
        }
    }

    /** The caller saw the journal exist just before: the first tail starts without a check. */
    private final boolean journalSeen;

    FollowSource(
            SandboxHandle handle,
            String runId,
            long fromOffset,
            JournalFiles files,
            Duration pollInterval,
            int maxBuffered,
            boolean journalSeen) {
        this.journalSeen = journalSeen;
        this.handle = handle;
        this.runId = runId;
        this.received = fromOffset;
        this.files = files;
        this.pollInterval = pollInterval;
        this.maxBuffered = maxBuffered;
    }

    @Override
    public Fetch next(Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        Tail t;
        boolean restart;
        synchronized (lock) {
            if (closed) {
                return Fetch.none(false);
            }
            t = current;
            restart = t != null && t.stopped && queue.isEmpty();
        }
        if (t == null) {
            boolean exists = journalSeen;
            try {
                exists = exists || files.exists(handle, runId);
            } catch (RuntimeException e) {
                return Fetch.ended(
                        "checking the journal failed: " + e.getMessage(), Optional.of(e));
            }
            if (!exists) {
                sleep(Math.min(pollInterval.toNanos(), Math.max(0, deadline - System.nanoTime())));
                return Fetch.none(true);
            }
            Optional<Fetch> failed = spawn();
            if (failed.isPresent()) {
                return failed.get();
            }
        } else if (restart) {
            kill(t);
            Optional<Fetch> failed = spawn();
            if (failed.isPresent()) {
                return failed.get();
            }
        }
        synchronized (lock) {
            while (queue.isEmpty() && !closed && !current.exited) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (!queue.isEmpty()) {
                ByteArrayOutputStream all =
                        new ByteArrayOutputStream(
                                (int) Math.min(queuedBytes, Integer.MAX_VALUE - 8));
                while (!queue.isEmpty()) {
                    all.writeBytes(queue.poll());
                }
                queuedBytes = 0;
                return Fetch.bytes(all.toByteArray(), false);
            }
            if (!closed && current.exited) {
                Tail ended = current;
                String err = ended.stderr.toString().strip();
                return Fetch.ended(
                        "the journal's tail process "
                                + (ended.failure.isPresent()
                                        ? "failed: " + ended.failure.get()
                                        : "exited with code " + ended.exitCode)
                                + (err.isEmpty() ? "" : " (" + err + ")"),
                        ended.failure);
            }
            return Fetch.none(false);
        }
    }

    /** Starts a tail at {@link #received}; empty on success, else the end of the stream. */
    private Optional<Fetch> spawn() {
        long from;
        synchronized (lock) {
            from = received;
        }
        SandboxProcess p;
        try {
            p = handle.process().spawn(files.commands().follow(runId, from));
        } catch (RuntimeException e) {
            return Optional.of(
                    Fetch.ended(
                            "starting the journal's tail failed: " + e.getMessage(),
                            Optional.of(e)));
        }
        Tail t = new Tail(p);
        boolean closedMeanwhile;
        synchronized (lock) {
            closedMeanwhile = closed;
            if (closedMeanwhile) {
                t.stopped = true;
            }
            current = t;
        }
        if (closedMeanwhile) {
            kill(t); // close() raced with the spawn and could not see this tail
            return Optional.of(Fetch.none(false));
        }
        p.subscribe(
                new SandboxProcess.OutputListener() {
                    @Override
                    public void onOutput(OutputChunk chunk) {
                        accept(t, chunk);
                    }
                });
        // The future completes after every chunk has been delivered, also when following failed
        // (in which case listeners get no onExit), so it is the one end signal.
        p.onExit().whenComplete((code, failure) -> exited(t, code, failure));
        return Optional.empty();
    }

    private void accept(Tail t, OutputChunk chunk) {
        synchronized (lock) {
            if (t.stopped || t != current) {
                return;
            }
            if (chunk.stream() == OutputChunk.Stream.STDERR) {
                t.stderr.append(chunk.text());
                if (t.stderr.length() > STDERR_KEEP) {
                    t.stderr.delete(0, t.stderr.length() - STDERR_KEEP);
                }
                return;
            }
            byte[] b = chunk.text().getBytes(StandardCharsets.UTF_8);
            queue.add(b);
            queuedBytes += b.length;
            received += b.length;
            if (queuedBytes > maxBuffered) {
                // Stop taking this tail's output; next() restarts at `received` once drained.
                t.stopped = true;
            }
            lock.notifyAll();
        }
    }

    private void exited(Tail t, Integer code, Throwable failure) {
        synchronized (lock) {
            if (t.stopped || t != current) {
                return;
            }
            t.exited = true;
            t.exitCode = code == null ? -1 : code;
            t.failure = Optional.ofNullable(failure);
            lock.notifyAll();
        }
    }

    @Override
    public void close() {
        Tail t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            t = current;
            if (t != null) {
                t.stopped = true;
            }
            queue.clear();
            queuedBytes = 0;
            lock.notifyAll();
        }
        if (t != null) {
            kill(t);
        }
    }

    /** Kills a tail and waits for the kill; a sandbox that is gone took the tail with it. */
    private void kill(Tail t) {
        try {
            t.process.kill();
        } catch (RuntimeException e) {
            LOG.log(
                    Level.FINE,
                    "stopping the journal tail of run " + runId + " failed (sandbox gone?)",
                    e);
        }
    }

    private static void sleep(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
