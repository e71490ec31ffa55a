package dev.agentbox.sandbox.datapath;

import dev.agentbox.sandbox.support.BoundedCapture;
import java.io.Closeable;
import java.time.Duration;

/**
 * A started command whose output is captured up to a cap, by whichever path started it: the sandbox
 * channel ({@link ChannelCall}) or a provider's own exec (Docker's engine exec). Nothing here
 * blocks without the caller's deadline.
 */
public interface CapturedExec extends Closeable {

    /** Why a wait ended. */
    enum End {
        COMPLETED,
        CAPPED,
        DEADLINE,
        /** The path broke before the command ended (the sandbox's helper died mid-command). */
        BROKEN
    }

    /**
     * Waits up to {@code d} for the stream to complete, the output to reach the cap, or a break.
     */
    End await(Duration d);

    /**
     * Waits up to {@code d} for the stream to complete (the command and all holders of its output
     * gone).
     */
    boolean awaitCompleted(Duration d);

    boolean isCompleted();

    BoundedCapture capture();

    /** The command's exit status, once {@link #isCompleted()}. */
    int exitCode();

    /** Why the path broke, once {@link #await} said {@link End#BROKEN}; null otherwise. */
    default String brokenBecause() {
        return null;
    }

    /** Stops reading and releases the connection; the command itself is not touched. */
    @Override
    void close();
}
