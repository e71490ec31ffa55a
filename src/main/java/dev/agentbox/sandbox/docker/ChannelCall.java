package dev.agentbox.sandbox.docker;

import dev.agentbox.sandbox.channel.ChannelExec;
import dev.agentbox.sandbox.spi.BoundedCapture;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A captured command over the sandbox channel: the same waits as {@link DockerEngine.ExecCall},
 * with the exit status carried by the channel itself (no inspect) and a break of the channel
 * reported as {@link End#BROKEN}, never as a completion.
 */
final class ChannelCall implements CapturedExec, ChannelExec.Listener {

    private final BoundedCapture capture;
    private final CountDownLatch completed = new CountDownLatch(1);
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile ChannelExec exec;
    private volatile int status = -1;
    private volatile String broken;
    private ScheduledExecutorService timer;
    private boolean pumped;

    ChannelCall(long cap) {
        this.capture = new BoundedCapture(cap);
    }

    void attach(ChannelExec exec) {
        this.exec = exec;
    }

    /**
     * Attaches an exec that has no reader thread: the first {@link #await} reads its output on the
     * waiting thread, until its end, the deadline (when {@code timer} closes the connection) or the
     * output cap.
     */
    void attachUnpumped(ChannelExec exec, ScheduledExecutorService timer) {
        this.exec = exec;
        this.timer = timer;
    }

    @Override
    public void stdout(byte[] bytes) {
        if (!capture.append(false, bytes, 0, bytes.length)) {
            capped();
        }
    }

    @Override
    public void stderr(byte[] bytes) {
        if (!capture.append(true, bytes, 0, bytes.length)) {
            capped();
        }
    }

    private void capped() {
        stop.countDown();
        if (timer != null) {
            exec.close(); // ends the caller's read loop; the caller kills the command
        }
    }

    @Override
    public void exited(int s) {
        status = s;
        completed.countDown();
        stop.countDown();
    }

    @Override
    public void broken(String why) {
        broken = why;
        stop.countDown();
    }

    /** Why the channel broke, when it did. */
    String brokenBecause() {
        return broken;
    }

    @Override
    public End await(Duration d) {
        if (timer != null) {
            if (!pumpHere(d)) {
                return End.DEADLINE;
            }
        } else {
            try {
                stop.await(Math.max(0, d.toNanos()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return End.DEADLINE;
            }
        }
        if (capture.overflowed()) {
            return End.CAPPED;
        }
        if (completed.getCount() == 0) {
            return End.COMPLETED;
        }
        return broken != null ? End.BROKEN : End.DEADLINE;
    }

    /** Reads the output on this thread (once); false when this thread was interrupted. */
    private boolean pumpHere(Duration d) {
        if (!pumped) {
            pumped = true;
            ChannelExec x = exec;
            ScheduledFuture<?> deadline =
                    timer.schedule(x::close, Math.max(1, d.toMillis()), TimeUnit.MILLISECONDS);
            try {
                x.pumpHere();
            } finally {
                deadline.cancel(false);
            }
        }
        return !Thread.currentThread().isInterrupted();
    }

    @Override
    public boolean awaitCompleted(Duration d) {
        if (timer != null) {
            // Nobody reads any more once the caller's read loop ended: what did not complete
            // by then never will here.
            return isCompleted();
        }
        try {
            return completed.await(Math.max(0, d.toNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean isCompleted() {
        return completed.getCount() == 0;
    }

    @Override
    public BoundedCapture capture() {
        return capture;
    }

    @Override
    public int exitCode() {
        return status;
    }

    @Override
    public void close() {
        ChannelExec x = exec;
        if (x != null) {
            x.close();
        }
    }
}
