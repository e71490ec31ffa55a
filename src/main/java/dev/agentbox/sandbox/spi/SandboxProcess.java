package dev.agentbox.sandbox.spi;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A background process. Output is retained from the start (up to a bound) and delivered to every
 * subscriber in order, then live; a subscriber that comes late still sees the beginning. There is
 * no reconnect to a process after a server restart (that is what the run journal is for).
 */
public interface SandboxProcess {

    /** Identifier of this process, unique within its sandbox. */
    String id();

    /**
     * Delivers every retained chunk, then live chunks, then {@link OutputListener#onExit} once.
     * Callbacks come from one thread per process, in order. Close to stop listening.
     */
    AutoCloseable subscribe(OutputListener listener);

    /** Writes text (UTF-8) to the process's stdin; capability {@code writableStdin}. */
    void writeStdin(String text);

    /** Closes stdin (the process sees end of input); capability {@code writableStdin}. */
    void closeStdin();

    /** Completes with the exit code when the process has exited and its output is drained. */
    CompletableFuture<Integer> onExit();

    /** Waits up to {@code timeout}; empty if still running. */
    default OptionalInt waitFor(Duration timeout) {
        try {
            return OptionalInt.of(onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalInt.empty();
        } catch (ExecutionException e) {
            throw new IllegalStateException("process " + id() + " failed", e.getCause());
        }
    }

    /**
     * Kills the process and everything it started (its process group): TERM, then KILL after a
     * short grace. Killing an exited process is quiet.
     */
    void kill();

    /**
     * Sends {@code signal} once to the process and everything it started (its process group), with
     * no escalation: what the process does with it is its own business (a trap may ignore it).
     * Signalling an exited process is quiet. Capability {@code killableProcesses}.
     */
    void signal(ProcessSignal signal);

    /** Receives decoded output. */
    interface OutputListener {
        void onOutput(OutputChunk chunk);

        default void onExit(int exitCode) {}
    }
}
