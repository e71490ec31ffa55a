package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Slot;
import dev.agentbox.sandbox.spi.ExecResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The exec answer: exact for quick commands, whitespace-then-body for long ones, kill on leave. */
class DisconnectAwareExecTest {

    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    @Test
    void aQuickExecIsAnsweredWithItsResultAndAQuickFailureWithItsProblem() {
        DisconnectAwareExec.Answer r =
                DisconnectAwareExec.answer(
                        executor, () -> new ExecResult("o", "e", 3, false), () -> Slot.NONE);
        assertThat(r.streamed()).isNull();
        assertThat(ExecView.of(r.quick())).isEqualTo(new ExecView(3, "o", "e", null));

        assertThatThrownBy(
                        () ->
                                DisconnectAwareExec.answer(
                                        executor,
                                        () -> {
                                            throw ProblemException.notFound("gone");
                                        },
                                        () -> Slot.NONE))
                .isInstanceOf(ProblemException.class);
    }

    @Test
    void aLongExecIsWhitespaceThenItsResultAndAFailureAfterTheCommitIsAProblemBody()
            throws Exception {
        DisconnectAwareExec.Answer ok =
                DisconnectAwareExec.answer(
                        executor,
                        () -> {
                            sleep(3200);
                            return new ExecResult("late\n", "", 0, false);
                        },
                        () -> Slot.NONE);
        String body = written(ok);
        assertThat(body).startsWith(" ");
        assertThat(body.trim())
                .isEqualTo("{\"exitCode\":0,\"stdout\":\"late\\n\",\"stderr\":\"\"}");

        DisconnectAwareExec.Answer failed =
                DisconnectAwareExec.answer(
                        executor,
                        () -> {
                            sleep(2000);
                            throw ProblemException.notFound("the sandbox went away");
                        },
                        () -> Slot.NONE);
        String problem = written(failed).trim();
        assertThat(problem).contains("\"status\":404").contains("\"code\":\"not-found\"");
        assertThat(problem).doesNotContain("exitCode");
    }

    @Test
    void aClientThatLeavesInterruptsTheExecSoItsCommandIsKilled() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        DisconnectAwareExec.Answer r =
                DisconnectAwareExec.answer(
                        executor,
                        () -> {
                            try {
                                Thread.sleep(60_000);
                            } catch (InterruptedException e) {
                                interrupted.countDown();
                            }
                            return new ExecResult("", "", 137, false);
                        },
                        () -> Slot.NONE);
        OutputStream gone =
                new OutputStream() {
                    @Override
                    public void write(int b) throws IOException {
                        throw new IOException("Broken pipe");
                    }
                };
        assertThatThrownBy(() -> r.streamed().write(gone)).isInstanceOf(IOException.class);
        assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
    }

    private static String written(DisconnectAwareExec.Answer r) throws IOException {
        assertThat(r.quick()).isNull();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        r.streamed().write(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
