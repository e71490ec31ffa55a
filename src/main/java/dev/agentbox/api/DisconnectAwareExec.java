package dev.agentbox.api;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Slot;
import dev.agentbox.sandbox.spi.ExecResult;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The answer to {@code POST /sandboxes/{key}/exec}: a command whose client goes away is killed
 * instead of running to its timeout.
 *
 * <p>Why whitespace: the servlet container learns that a client left only when it writes to the
 * connection (a read-side close is not reported to a request that is not reading, and an async
 * request's listener is told only of timeouts and write errors). So a request that waits silently
 * for a long command cannot notice its client is gone, and its command would run to its timeout.
 * This class therefore runs the exec on a worker ({@link ExecWorkers}) while the request thread
 * watches, and:
 *
 * <ul>
 *   <li>answers normally when the exec ends within {@link #COMMIT_AFTER}: the usual status codes,
 *       problem documents and body, as for every other request;
 *   <li>otherwise commits {@code 200 application/json} and writes one space every {@link
 *       #KEEPALIVE_EVERY} while the command runs (leading whitespace is legal JSON, so the body
 *       stays one JSON document), then the result object. A write that fails means the client is
 *       gone: the worker is interrupted, which is the providers' "abandoned" path — the command's
 *       process group is killed (Docker: {@code BoundedExecs}; local: {@code LocalProcess.kill}).
 *       TCP reports a closed peer on the second write after the close at the latest, so a gone
 *       client is noticed within about two keep-alive periods.
 * </ul>
 *
 * <p>A failure after the commit (the provider failed, the sandbox went away mid-command) cannot
 * change the status any more: the body is then the problem document the server would have answered
 * (members {@code type}, {@code title}, {@code status}, {@code detail}, {@code code}) instead of a
 * result; a client tells the two apart by {@code exitCode}, which every result has and no problem
 * has.
 *
 * <p>The tenant's {@code concurrent-execs} slot is held until the command has really ended (the
 * worker's end), not until the response was committed: the streaming answer takes it over from
 * {@link HeldExecSlot}.
 */
final class DisconnectAwareExec {

    /** How long a command may run before the answer is committed and whitespace keeps it alive. */
    static final Duration COMMIT_AFTER = Duration.ofMillis(1500);

    /** One space per period while a committed exec runs. */
    static final Duration KEEPALIVE_EVERY = Duration.ofSeconds(1);

    private static final Logger LOG = Logger.getLogger(DisconnectAwareExec.class.getName());

    private DisconnectAwareExec() {}

    /**
     * Runs {@code exec} on {@code executor} and answers as described above; {@code slot} supplies
     * the request's exec slot when the answer becomes a stream.
     */
    static Response run(ExecutorService executor, Supplier<ExecResult> exec, Supplier<Slot> slot) {
        Answer a = answer(executor, exec, slot);
        return a.streamed() != null
                ? Response.ok(a.streamed(), MediaType.APPLICATION_JSON_TYPE).build()
                : Response.ok(ExecView.of(a.quick())).build();
    }

    /** Either the result of an exec that ended in time, or the body that answers a longer one. */
    record Answer(ExecResult quick, StreamingOutput streamed) {}

    static Answer answer(ExecutorService executor, Supplier<ExecResult> exec, Supplier<Slot> slot) {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        Future<ExecResult> work =
                executor.submit(
                        () -> {
                            try {
                                return exec.get();
                            } finally {
                                ended.complete(null);
                            }
                        });
        try {
            return new Answer(work.get(COMMIT_AFTER.toMillis(), TimeUnit.MILLISECONDS), null);
        } catch (TimeoutException stillRunning) {
            Slot held = slot.get();
            ended.whenComplete((x, y) -> held.close());
            return new Answer(null, streamed(work));
        } catch (InterruptedException e) {
            work.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a command", e);
        } catch (ExecutionException e) {
            throw rethrown(e.getCause());
        }
    }

    private static StreamingOutput streamed(Future<ExecResult> work) {
        return out -> {
            ExecResult result;
            try {
                result = awaitWhileClientListens(work, out);
            } catch (IOException clientGone) {
                work.cancel(true);
                LOG.log(Level.FINE, "exec client went away; command killed", clientGone);
                throw clientGone;
            } catch (RuntimeException failed) {
                write(out, problemJson(failed));
                return;
            }
            write(out, resultJson(result));
        };
    }

    private static ExecResult awaitWhileClientListens(Future<ExecResult> work, OutputStream out)
            throws IOException {
        while (true) {
            try {
                return work.get(KEEPALIVE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillRunning) {
                out.write(' ');
                out.flush();
            } catch (InterruptedException e) {
                work.cancel(true);
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a command", e);
            } catch (ExecutionException e) {
                throw rethrown(e.getCause());
            } catch (CancellationException e) {
                throw new IllegalStateException("the command was cancelled", e);
            }
        }
    }

    private static void write(OutputStream out, String json) throws IOException {
        out.write(json.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String resultJson(ExecResult r) {
        ExecView v = ExecView.of(r);
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("exitCode", v.exitCode())
                        .add("stdout", v.stdout())
                        .add("stderr", v.stderr());
        if (v.truncated() != null) {
            b.add("truncated", true);
        }
        return b.build().toString();
    }

    /** The problem the exception mapper would have answered, as a body. */
    private static String problemJson(RuntimeException failed) {
        if (failed instanceof ProblemException p) {
            return Problems.json(p.code(), p.detail(), p.extensions());
        }
        Object entity = new ProblemMapper().toResponse(failed).getEntity();
        return String.valueOf(entity);
    }

    private static RuntimeException rethrown(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            return r;
        }
        if (cause instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(cause);
    }
}
