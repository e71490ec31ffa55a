package dev.agentbox.sandbox.spi;

import dev.agentbox.sandbox.spi.SandboxProcess.OutputListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The output side of a background process, shared by the providers: decodes each stream
 * incrementally, retains the newest chunks for late subscribers and fans them out in order to
 * subscribers, then the exit code once.
 *
 * <p>Memory bound: at most {@code retainChars} characters are retained (oldest chunks dropped
 * first; a single chunk larger than the bound keeps only its tail), whatever the process prints and
 * however long it runs. A late subscriber therefore sees the newest output, not necessarily the
 * first.
 */
public final class ProcessOutput {

    /** Default of retained characters for late subscribers. */
    public static final int RETAIN_CHARS = 1024 * 1024;

    private static final Logger LOG = Logger.getLogger(ProcessOutput.class.getName());

    private final Utf8StreamDecoder out = new Utf8StreamDecoder();
    private final Utf8StreamDecoder err = new Utf8StreamDecoder();
    private final List<OutputChunk> retained = new ArrayList<>();
    private final List<OutputListener> listeners = new ArrayList<>();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final int retainChars;
    private long retainedChars;
    private boolean finished;

    public ProcessOutput() {
        this(RETAIN_CHARS);
    }

    /** Keeps at most {@code retainChars} characters of the newest output for late subscribers. */
    public ProcessOutput(int retainChars) {
        if (retainChars < 1) {
            throw new IllegalArgumentException("retainChars must be positive: " + retainChars);
        }
        this.retainChars = retainChars;
    }

    /** Called by the provider's reader with raw bytes of one stream. */
    public synchronized void bytes(OutputChunk.Stream stream, byte[] data, int off, int len) {
        if (finished) {
            return;
        }
        String text = (stream == OutputChunk.Stream.STDOUT ? out : err).feed(data, off, len);
        emit(stream, text);
    }

    /** Called once when both streams are drained and the exit code is known. */
    public void exited(int exitCode) {
        List<OutputListener> targets;
        synchronized (this) {
            if (finished) {
                return;
            }
            emit(OutputChunk.Stream.STDOUT, out.finish());
            emit(OutputChunk.Stream.STDERR, err.finish());
            finished = true;
            targets = List.copyOf(listeners);
            listeners.clear();
        }
        for (OutputListener l : targets) {
            safe(() -> l.onExit(exitCode));
        }
        exit.complete(exitCode);
    }

    /** Called when the process could not be followed to its end. */
    public void failed(Throwable t) {
        synchronized (this) {
            finished = true;
            listeners.clear();
        }
        exit.completeExceptionally(t);
    }

    /** Characters currently retained (for tests of the bound). */
    synchronized long retainedChars() {
        return retainedChars;
    }

    public CompletableFuture<Integer> onExit() {
        return exit;
    }

    public AutoCloseable subscribe(OutputListener listener) {
        List<OutputChunk> replay;
        synchronized (this) {
            replay = List.copyOf(retained);
            for (OutputChunk c : replay) {
                safe(() -> listener.onOutput(c));
            }
            if (!finished) {
                listeners.add(listener);
                return () -> {
                    synchronized (ProcessOutput.this) {
                        listeners.remove(listener);
                    }
                };
            }
        }
        exit.thenAccept(listener::onExit);
        return () -> {};
    }

    private void emit(OutputChunk.Stream stream, String text) {
        if (text.isEmpty()) {
            return;
        }
        OutputChunk chunk = new OutputChunk(stream, text);
        OutputChunk kept =
                text.length() <= retainChars
                        ? chunk
                        : new OutputChunk(stream, text.substring(text.length() - retainChars));
        retained.add(kept);
        retainedChars += kept.text().length();
        while (retainedChars > retainChars && retained.size() > 1) {
            retainedChars -= retained.remove(0).text().length();
        }
        for (OutputListener l : listeners) {
            safe(() -> l.onOutput(chunk));
        }
    }

    private static void safe(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "process output listener failed", e);
        }
    }
}
