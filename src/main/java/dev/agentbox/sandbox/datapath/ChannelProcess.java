package dev.agentbox.sandbox.datapath;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelExec;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessOutput;
import dev.agentbox.sandbox.spi.ProcessSignal;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import dev.agentbox.sandbox.spi.SandboxProcess;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A background process started through the sandbox channel: output decoded and fanned out as it
 * arrives, the exit status carried by the channel, and a stdin whose end really arrives (the
 * channel closes the pipe), which an engine exec cannot offer. Kill and signal go by the group's
 * pid file, like every other process of the sandbox, so they work from any connection and after the
 * helper restarted.
 */
public final class ChannelProcess implements SandboxProcess, ChannelExec.Listener {

    private final String sandbox;
    private final String id;
    private final ProcessGroups groups;
    private final ProcessOutput output;
    private volatile ChannelExec exec;

    /**
     * @param sandbox the sandbox's id, for messages
     * @param id the process's id, the name of its group's pid file
     * @param groups how its group is killed and signalled
     */
    public ChannelProcess(String sandbox, String id, int bufferChars, ProcessGroups groups) {
        this.sandbox = sandbox;
        this.id = id;
        this.groups = groups;
        this.output = new ProcessOutput(bufferChars);
    }

    /**
     * Starts {@code command} (under the pid-file wrapper of {@link ProcessGroups#wrapped}) over
     * {@code ch} with a writable stdin, as process {@code id}.
     *
     * @throws ChannelException as {@link SandboxChannel#exec} does; when the request was sent, the
     *     caller kills the group
     */
    public static ChannelProcess start(
            SandboxChannel ch,
            String sandbox,
            String id,
            int bufferChars,
            ProcessGroups groups,
            String command,
            List<String> env,
            String cwd) {
        ChannelProcess p = new ChannelProcess(sandbox, id, bufferChars, groups);
        p.attach(ch.exec(ProcessGroups.wrapped(id, command), env, cwd, true, p));
        return p;
    }

    public void attach(ChannelExec exec) {
        this.exec = exec;
    }

    @Override
    public void stdout(byte[] bytes) {
        output.bytes(OutputChunk.Stream.STDOUT, bytes, 0, bytes.length);
    }

    @Override
    public void stderr(byte[] bytes) {
        output.bytes(OutputChunk.Stream.STDERR, bytes, 0, bytes.length);
    }

    @Override
    public void exited(int status) {
        output.exited(status);
    }

    @Override
    public void broken(String why) {
        output.failed(
                new ProblemException(
                        ProblemCode.PROVIDER_UNAVAILABLE,
                        "Process " + id + " in sandbox " + sandbox + " was cut off: " + why));
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public AutoCloseable subscribe(OutputListener listener) {
        return output.subscribe(listener);
    }

    /** Refused once the process has exited: its stdin is gone with it. */
    @Override
    public void writeStdin(String text) {
        if (output.onExit().isDone()) {
            throw new SandboxOperationException(
                    "write to the stdin of process " + id, "the process has exited");
        }
        try {
            exec.writeStdin(text.getBytes(StandardCharsets.UTF_8));
        } catch (ChannelException e) {
            // The helper drops the connection once the command has ended; its end frame may
            // still be on the way.
            try {
                output.onExit().get(1, java.util.concurrent.TimeUnit.SECONDS);
                throw new SandboxOperationException(
                        "write to the stdin of process " + id, "the process has exited");
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException
                    | java.util.concurrent.TimeoutException ignored) {
                // still running, or cut off: the channel's failure is the answer
            }
            throw unavailable("write to the stdin of", e);
        }
    }

    /** Quiet after the process has exited, and when called twice. */
    @Override
    public void closeStdin() {
        if (output.onExit().isDone()) {
            return;
        }
        try {
            exec.closeStdin();
        } catch (ChannelException e) {
            if (!output.onExit().isDone()) {
                throw unavailable("close the stdin of", e);
            }
        }
    }

    private ProblemException unavailable(String what, ChannelException e) {
        return new ProblemException(
                ProblemCode.PROVIDER_UNAVAILABLE,
                "Could not " + what + " process " + id + ": " + e.getMessage());
    }

    @Override
    public CompletableFuture<Integer> onExit() {
        return output.onExit();
    }

    @Override
    public void kill() {
        groups.killGroup(id);
    }

    @Override
    public void signal(ProcessSignal signal) {
        groups.signalGroup(id, signal);
    }
}
