package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.Incident;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.FrameQueue;
import dev.agentbox.sandbox.datapath.CapturedExec;
import dev.agentbox.sandbox.support.BoundedCapture;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The provider's connection to the engine: one long-lived docker-java client for work and one with
 * a short response timeout for pings, plus the exec primitives everything else is built on ({@link
 * ExecCall}: output captured up to a cap; {@link StreamCall}: stdout handed over frame by frame)
 * and the kill pool. Nothing here waits without a deadline the caller chose. Engine trouble becomes
 * {@code 503 provider-unavailable}.
 */
final class DockerEngine implements Closeable {

    private static final Logger LOG = Logger.getLogger(DockerEngine.class.getName());

    private final DockerClient client;
    private final DockerClient pingClient;
    private final ThreadPoolExecutor ops =
            new ThreadPoolExecutor(
                    OPS_THREADS,
                    OPS_THREADS,
                    30,
                    TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(OPS_QUEUE),
                    new DaemonThreads("agentbox-docker-ops"));

    /** Kill-pool threads; each kill holds one for at most a few internal deadlines. */
    static final int OPS_THREADS = 32;

    /**
     * Kills waiting for a thread; past it a kill is refused (logged) rather than queued without
     * bound.
     */
    static final int OPS_QUEUE = 10_000;

    DockerEngine(String host) {
        DockerClientConfig config =
                DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(host).build();
        this.client =
                DockerClientImpl.getInstance(
                        config,
                        new ApacheDockerHttpClient.Builder()
                                .dockerHost(config.getDockerHost())
                                .sslConfig(config.getSSLConfig())
                                .maxConnections(200)
                                .connectionTimeout(Duration.ofSeconds(5))
                                .build());
        this.pingClient =
                DockerClientImpl.getInstance(
                        config,
                        new ApacheDockerHttpClient.Builder()
                                .dockerHost(config.getDockerHost())
                                .sslConfig(config.getSSLConfig())
                                .maxConnections(2)
                                .connectionTimeout(Duration.ofSeconds(3))
                                .responseTimeout(Duration.ofSeconds(3))
                                .build());
        ops.allowCoreThreadTimeOut(true);
    }

    DockerClient client() {
        return client;
    }

    boolean ping() {
        try {
            pingClient.pingCmd().exec();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Runs a docker-java call; transport failures (engine unreachable) become provider-unavailable.
     */
    static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (DockerException | ProblemException e) {
            throw e;
        } catch (RuntimeException e) {
            // The transport's message (socket paths, an engine's response) is for the log only.
            Incident incident =
                    Incident.log(
                            LOG,
                            Level.WARNING,
                            "Docker engine unavailable during " + what + ": " + rootMessage(e),
                            e);
            throw ProblemException.providerUnavailable(
                    incident.text("Docker engine unavailable during " + what), e);
        }
    }

    static void run(String what, Runnable r) {
        call(
                what,
                () -> {
                    r.run();
                    return null;
                });
    }

    /**
     * Starts an exec attached, capturing at most {@code cap} bytes of its output; the caller waits
     * on the returned call with its own deadline and closes it.
     */
    ExecCall start(String container, List<String> cmd, List<String> env, String workdir, long cap) {
        String execId = createExec(container, cmd, env, workdir);
        ExecCall call = new ExecCall(this, execId, cap);
        attach(execId, call.callback(), call::close);
        return call;
    }

    /**
     * Starts {@code execId} attached to {@code callback}; a start that fails runs {@code release}
     * (the connection).
     */
    private void attach(String execId, ResultCallback.Adapter<Frame> callback, Runnable release) {
        try {
            call("exec", () -> client.execStartCmd(execId).exec(callback));
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
    }

    /**
     * One started exec: output captured up to a cap, and the points a waiter cares about — the
     * stream completed, or the cap was reached (the command must then be killed: it would otherwise
     * go on printing into a stream nobody keeps). Nothing here blocks without a deadline; {@link
     * #close} releases the engine connection whatever the command does.
     */
    static final class ExecCall implements CapturedExec {

        private final DockerEngine engine;
        private final String execId;
        private final BoundedCapture capture;
        private final CountDownLatch completed = new CountDownLatch(1);
        private final CountDownLatch stop = new CountDownLatch(1);
        private final ResultCallback.Adapter<Frame> callback;

        ExecCall(DockerEngine engine, String execId, long cap) {
            this.engine = engine;
            this.execId = execId;
            this.capture = new BoundedCapture(cap);
            this.callback =
                    new ResultCallback.Adapter<>() {
                        @Override
                        public void onNext(Frame f) {
                            byte[] b = f.getPayload();
                            if (!capture.append(
                                    f.getStreamType() == StreamType.STDERR, b, 0, b.length)) {
                                stop.countDown();
                            }
                        }

                        @Override
                        public void onError(Throwable t) {
                            super.onError(t);
                            finished();
                        }

                        @Override
                        public void onComplete() {
                            super.onComplete();
                            finished();
                        }
                    };
        }

        private void finished() {
            completed.countDown();
            stop.countDown();
        }

        ResultCallback.Adapter<Frame> callback() {
            return callback;
        }

        String execId() {
            return execId;
        }

        /** Waits up to {@code d} for the stream to complete or the output to reach the cap. */
        @Override
        public End await(Duration d) {
            try {
                stop.await(Math.max(0, d.toNanos()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return End.DEADLINE;
            }
            if (capture.overflowed()) {
                return End.CAPPED;
            }
            return completed.getCount() == 0 ? End.COMPLETED : End.DEADLINE;
        }

        /**
         * Waits up to {@code d} for the stream to complete (the command and all holders of its
         * output gone).
         */
        @Override
        public boolean awaitCompleted(Duration d) {
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

        /** Asks the engine (inspect), which may report the code a moment after the stream ends. */
        @Override
        public int exitCode() {
            return engine.exitCode(execId);
        }

        /** Stops reading and releases the connection; the command itself is not touched. */
        @Override
        public void close() {
            try {
                callback.close();
            } catch (IOException ignored) {
                // already complete
            }
        }
    }

    /**
     * Starts an exec attached whose stdout is handed over chunk by chunk (for streamed reads); see
     * {@link StreamCall}.
     */
    StreamCall startStream(String container, List<String> cmd, List<String> env, String workdir) {
        String execId = createExec(container, cmd, env, workdir);
        StreamCall call = new StreamCall(execId);
        attach(execId, call.callback(), call::close);
        return call;
    }

    /**
     * An exec whose stdout is passed to one consumer through a small bounded queue: the engine's
     * reader thread blocks (back-pressure into the command's pipe) while the consumer is slow, so
     * at most {@value #QUEUED_FRAMES} frames are ever held. Stderr keeps its first 4 KiB for error
     * messages. {@link #close} unblocks the reader thread and releases the connection.
     */
    static final class StreamCall implements Closeable {

        static final int QUEUED_FRAMES = 32;

        private final String execId;
        private final FrameQueue stdout = new FrameQueue(QUEUED_FRAMES);
        private final BoundedCapture stderr = new BoundedCapture(4096);
        private final ResultCallback.Adapter<Frame> callback;

        StreamCall(String execId) {
            this.execId = execId;
            this.callback =
                    new ResultCallback.Adapter<>() {
                        @Override
                        public void onNext(Frame f) {
                            byte[] b = f.getPayload();
                            if (f.getStreamType() == StreamType.STDERR) {
                                stderr.append(true, b, 0, b.length);
                            } else if (b.length > 0) {
                                // a copy: the frame's buffer is not ours to keep once onNext
                                // returns
                                stdout.put(b.clone());
                            }
                        }

                        // The end is a flag (FrameQueue#end): docker-java may call these on a
                        // thread it has already interrupted.
                        @Override
                        public void onError(Throwable t) {
                            super.onError(t);
                            stdout.end();
                        }

                        @Override
                        public void onComplete() {
                            super.onComplete();
                            stdout.end();
                        }
                    };
        }

        ResultCallback.Adapter<Frame> callback() {
            return callback;
        }

        String execId() {
            return execId;
        }

        /**
         * The next stdout bytes, waiting at most {@code d}: null when the command stayed silent
         * that long, an empty array once the stream has ended.
         */
        byte[] next(Duration d) throws InterruptedException {
            return stdout.next(d);
        }

        String stderr() {
            return new String(stderr.stderr(), java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            stdout.close();
            try {
                callback.close();
            } catch (IOException ignored) {
                // already complete
            }
        }
    }

    /**
     * The pool that kills abandoned commands and runs other short internal operations: many
     * threads, each task bounded by the internal deadline, so one sandbox that stalls its kills
     * occupies one thread at a time and never delays another sandbox's kill (as one shared timer
     * thread would).
     */
    ExecutorService ops() {
        return ops;
    }

    /**
     * Creates an exec. A container that is gone is {@code 404 not-found}; one that is not running
     * (stopped, paused) is {@code 409 sandbox-not-running}.
     */
    String createExec(String container, List<String> cmd, List<String> env, String workdir) {
        try {
            return call(
                    "exec create",
                    () ->
                            client.execCreateCmd(container)
                                    .withCmd(cmd.toArray(String[]::new))
                                    .withAttachStdout(true)
                                    .withAttachStderr(true)
                                    .withEnv(env)
                                    .withWorkingDir(workdir)
                                    .exec()
                                    .getId());
        } catch (NotFoundException e) {
            throw gone(container, e);
        } catch (ConflictException e) {
            throw new ProblemException(
                    ProblemCode.SANDBOX_NOT_RUNNING,
                    "Sandbox " + container + " is not running.",
                    java.util.Map.of(),
                    e);
        }
    }

    static ProblemException gone(String container, Throwable cause) {
        return new ProblemException(
                ProblemCode.NOT_FOUND,
                "Sandbox " + container + " no longer exists.",
                java.util.Map.of(),
                cause);
    }

    /**
     * The exit code of a finished exec; tolerates the short window where the engine still reports
     * it running.
     */
    int exitCode(String execId) {
        for (int i = 0; ; i++) {
            InspectExecResponse r =
                    call("exec inspect", () -> client.inspectExecCmd(execId).exec());
            Long code = r.getExitCodeLong();
            if (code != null && !Boolean.TRUE.equals(r.isRunning())) {
                return code.intValue();
            }
            if (i >= 200) {
                throw new IllegalStateException("exec " + execId + " never reported an exit code");
            }
            try {
                Thread.sleep(i < 10 ? 2 : 20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    static String rootMessage(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }

    @Override
    public void close() throws IOException {
        ops.shutdownNow();
        client.close();
        pingClient.close();
    }
}
