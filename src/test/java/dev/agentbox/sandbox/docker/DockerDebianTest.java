package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The conformance suite on Docker with the Debian sandbox image. */
class DockerDebianTest extends DockerProviderContract {

    /**
     * The measurement behind {@code writableStdin=false}: through docker-java (httpclient5
     * transport) bytes written to an exec's stdin arrive, but closing our end never delivers
     * end-of-input, so {@code cat} never finishes. If a docker-java upgrade makes this test fail,
     * EOF works and the capability may be turned on.
     */
    @Test
    @DisplayName(
            "measured: exec stdin through docker-java delivers bytes but never EOF, hence writableStdin=false")
    void stdinEndOfInputDoesNotReachTheProcessThroughDockerJava() throws Exception {
        assertThat(provider.capabilities().writableStdin()).isFalse();
        String execId =
                client().execCreateCmd(sb.id())
                        .withCmd("sh", "-c", "echo $$ > /tmp/stdin-probe.pid; cat; echo done")
                        .withAttachStdin(true)
                        .withAttachStdout(true)
                        .withAttachStderr(true)
                        .exec()
                        .getId();
        PipedOutputStream writer = new PipedOutputStream();
        PipedInputStream reader = new PipedInputStream(writer);
        StringBuffer out = new StringBuffer();
        ResultCallback.Adapter<Frame> cb =
                client().execStartCmd(execId)
                        .withStdIn(reader)
                        .exec(
                                new ResultCallback.Adapter<>() {
                                    @Override
                                    public void onNext(Frame f) {
                                        out.append(
                                                new String(f.getPayload(), StandardCharsets.UTF_8));
                                    }
                                });
        try {
            writer.write("hi\n".getBytes(StandardCharsets.UTF_8));
            writer.flush();
            await().atMost(Duration.ofSeconds(10)).until(() -> out.toString().contains("hi\n"));
            writer.close();
            Thread.sleep(3000);
            assertThat(out.toString()).as("EOF reached cat").doesNotContain("done");
        } finally {
            sb.process().exec("kill -KILL -$(cat /tmp/stdin-probe.pid)");
            cb.close();
        }
    }

    @Override
    protected String image() {
        return "agentbox/sandbox:bookworm";
    }

    @Override
    protected boolean hasGit() {
        return true;
    }

    @Override
    protected String httpServerCommand(int port) {
        return debianHttpServer(port);
    }
}
