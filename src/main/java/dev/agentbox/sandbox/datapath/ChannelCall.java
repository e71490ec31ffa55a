package dev.agentbox.sandbox.datapath;

import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelExec;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.support.BoundedCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A captured command over the sandbox channel: the same waits as an engine's exec, with the exit
 * status carried by the channel itself (no inspect) and a break of the channel reported as {@link
 * End#BROKEN}, never as a completion.
 *
 * <p>The command has no reader thread: the first {@link #await} reads its output on the waiting
 * thread until its end, the deadline (a timer closes the connection) or the output cap (the
 * connection is closed at once). A command that ends quickly thus costs no thread hand-over. Once
 * that read loop has returned, nothing reads any more: what had not completed by then never
 * completes here, and the caller kills it by its pid file.
 */
public final class ChannelCall implements CapturedExec, ChannelExec.Listener {

    private final BoundedCapture capture;
    private final ScheduledExecutorService timer;
    private volatile ChannelExec exec;
    private volatile boolean completed;
    private volatile int status = -1;
    private volatile String broken;
    private boolean read;

    /**
     * @param cap the most output bytes kept
     * @param timer closes the connection at the deadline of {@link #await}
     */
    public ChannelCall(long cap, ScheduledExecutorService timer) {
        this.capture = new BoundedCapture(cap);
        this.timer = timer;
    }

    /**
     * Starts {@code scriptAndArgs} over {@code ch} (see {@link ScriptRunner#start}): with {@code
     * pid}, the helper itself records the script's process group (one process, no wrapper).
     *
     * @return the call; a call already {@link End#BROKEN} when the channel failed after the helper
     *     got the request (it may run)
     * @throws ChannelException when the channel failed before the helper got the request: nothing
     *     runs, so another path may start it
     */
    public static ChannelCall start(
            SandboxChannel ch,
            ScheduledExecutorService timer,
            Optional<String> pid,
            List<String> scriptAndArgs,
            List<String> env,
            String cwd,
            long cap) {
        List<String> sh =
                new ArrayList<>(List.of("/bin/sh", "-c", scriptAndArgs.get(0), "agentbox"));
        sh.addAll(scriptAndArgs.subList(1, scriptAndArgs.size()));
        ChannelCall call = new ChannelCall(cap, timer);
        try {
            call.attach(
                    ch.execUnpumped(
                            sh,
                            env,
                            cwd,
                            pid.map(p -> ProcessGroups.PROC_DIR + "/" + p).orElse(""),
                            call));
            return call;
        } catch (ChannelException e) {
            if (e.requestSent()) {
                call.broken(e.getMessage());
                return call;
            }
            throw e;
        }
    }

    /** The exec this call reads, started without a reader thread. */
    void attach(ChannelExec exec) {
        this.exec = exec;
    }

    @Override
    public void stdout(byte[] bytes) {
        if (!capture.append(false, bytes, 0, bytes.length)) {
            exec.close(); // ends the read loop; the caller kills the command
        }
    }

    @Override
    public void stderr(byte[] bytes) {
        if (!capture.append(true, bytes, 0, bytes.length)) {
            exec.close();
        }
    }

    @Override
    public void exited(int s) {
        status = s;
        completed = true;
    }

    @Override
    public void broken(String why) {
        broken = why;
    }

    /** Why the channel broke, when it did. */
    @Override
    public String brokenBecause() {
        return broken;
    }

    @Override
    public End await(Duration d) {
        ChannelExec x = exec;
        if (!read && x != null) {
            read = true;
            ScheduledFuture<?> deadline =
                    timer.schedule(x::close, Math.max(1, d.toMillis()), TimeUnit.MILLISECONDS);
            try {
                x.pumpHere();
            } finally {
                deadline.cancel(false);
            }
        }
        if (Thread.currentThread().isInterrupted()) {
            return End.DEADLINE; // abandoned: the caller kills the command
        }
        if (capture.overflowed()) {
            return End.CAPPED;
        }
        if (completed) {
            return End.COMPLETED;
        }
        return broken != null ? End.BROKEN : End.DEADLINE;
    }

    /** Nothing reads after {@link #await}: this says whether the command completed by then. */
    @Override
    public boolean awaitCompleted(Duration d) {
        return completed;
    }

    @Override
    public boolean isCompleted() {
        return completed;
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
