package dev.agentbox.sandbox.docker;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelExec;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessOutput;
import dev.agentbox.sandbox.spi.ProcessSignal;
import dev.agentbox.sandbox.spi.SandboxProcess;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * A background process started through the sandbox channel: output decoded and fanned out as it
 * arrives, the exit status carried by the channel, and a stdin whose end really arrives (the
 * channel closes the pipe), which an engine exec cannot offer. Kill and signal go by the group's
 * pid file, like every other process of the sandbox, so they work from any connection and after the
 * helper restarted.
 */
final class ChannelProcess implements SandboxProcess, ChannelExec.Listener {

    private final DockerSandbox sandbox;
    private final String id;
    private final ProcessOutput output;
    private volatile ChannelExec exec;

    ChannelProcess(DockerSandbox sandbox, String id) {
        this.sandbox = sandbox;
        this.id = id;
        this.output = new ProcessOutput(sandbox.providerBean().limits().processBufferChars());
    }

    void attach(ChannelExec exec) {
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
                        "Process " + id + " in sandbox " + sandbox.id() + " was cut off: " + why));
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public AutoCloseable subscribe(OutputListener listener) {
        return output.subscribe(listener);
    }

    @Override
    public void writeStdin(String text) {
        try {
            exec.writeStdin(text.getBytes(StandardCharsets.UTF_8));
        } catch (ChannelException e) {
            throw unavailable("write to the stdin of", e);
        }
    }

    @Override
    public void closeStdin() {
        try {
            exec.closeStdin();
        } catch (ChannelException e) {
            throw unavailable("close the stdin of", e);
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
        sandbox.killGroup(id);
    }

    @Override
    public void signal(ProcessSignal signal) {
        sandbox.signalGroup(id, signal);
    }
}
