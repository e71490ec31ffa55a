package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessOutput;
import dev.agentbox.sandbox.spi.ProcessSignal;
import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import java.util.concurrent.CompletableFuture;

/** A background exec whose frames are decoded and fanned out as they arrive. */
final class DockerProcess implements SandboxProcess {

    private final DockerSandbox sandbox;
    private final String id;
    private final String execId;
    private final ProcessOutput output;

    DockerProcess(DockerSandbox sandbox, String id, String execId) {
        this.sandbox = sandbox;
        this.id = id;
        this.execId = execId;
        this.output = new ProcessOutput(sandbox.providerBean().limits().processBufferChars());
    }

    void start() {
        DockerEngine engine = sandbox.providerBean().engine();
        DockerEngine.run(
                "exec start",
                () ->
                        engine.client()
                                .execStartCmd(execId)
                                .exec(
                                        new ResultCallback.Adapter<Frame>() {
                                            @Override
                                            public void onNext(Frame f) {
                                                byte[] b = f.getPayload();
                                                output.bytes(
                                                        f.getStreamType() == StreamType.STDERR
                                                                ? OutputChunk.Stream.STDERR
                                                                : OutputChunk.Stream.STDOUT,
                                                        b,
                                                        0,
                                                        b.length);
                                            }

                                            @Override
                                            public void onError(Throwable t) {
                                                super.onError(t);
                                                output.failed(t);
                                            }

                                            @Override
                                            public void onComplete() {
                                                super.onComplete();
                                                sandbox.providerBean()
                                                        .workers()
                                                        .execute(
                                                                () -> {
                                                                    try {
                                                                        output.exited(
                                                                                engine.exitCode(
                                                                                        execId));
                                                                    } catch (RuntimeException e) {
                                                                        output.failed(e);
                                                                    }
                                                                });
                                            }
                                        }));
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
        throw new UnsupportedCapabilityException(
                DockerSandboxProvider.NAME, Capability.WRITABLE_STDIN);
    }

    @Override
    public void closeStdin() {
        throw new UnsupportedCapabilityException(
                DockerSandboxProvider.NAME, Capability.WRITABLE_STDIN);
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
