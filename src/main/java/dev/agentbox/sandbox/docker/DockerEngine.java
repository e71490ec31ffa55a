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
import dev.agentbox.api.ProblemException;
import dev.agentbox.platform.Incident;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The provider's connection to the engine: one long-lived docker-java client for work and
 * one with a short response timeout for pings, plus the exec primitive everything else is
 * built on. Engine trouble becomes {@code 503 provider-unavailable}.
 */
final class DockerEngine implements Closeable {

    private static final Logger LOG = Logger.getLogger(DockerEngine.class.getName());

    private final DockerClient client;
    private final DockerClient pingClient;

    DockerEngine(String host) {
        DockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(host).build();
        this.client = DockerClientImpl.getInstance(config, new ApacheDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost())
                .sslConfig(config.getSSLConfig())
                .maxConnections(200)
                .connectionTimeout(Duration.ofSeconds(5))
                .build());
        this.pingClient = DockerClientImpl.getInstance(config, new ApacheDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost())
                .sslConfig(config.getSSLConfig())
                .maxConnections(2)
                .connectionTimeout(Duration.ofSeconds(3))
                .responseTimeout(Duration.ofSeconds(3))
                .build());
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

    /** Runs a docker-java call; transport failures (engine unreachable) become provider-unavailable. */
    static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (DockerException | ProblemException e) {
            throw e;
        } catch (RuntimeException e) {
            // The transport's message (socket paths, an engine's response) is for the log only.
            Incident incident = Incident.log(LOG, Level.WARNING, "Docker engine unavailable during " + what + ": " + rootMessage(e), e);
            throw ProblemException.providerUnavailable(incident.text("Docker engine unavailable during " + what), e);
        }
    }

    static void run(String what, Runnable r) {
        call(what, () -> {
            r.run();
            return null;
        });
    }

    /** The raw outcome of an exec: both byte streams, apart, and the exit code. */
    record RawExec(byte[] stdout, byte[] stderr, int exitCode) {
    }

    /**
     * create + start (attached) + wait + inspect: the bare minimum of round trips, with the
     * two streams kept apart as bytes.
     */
    RawExec exec(String container, List<String> cmd, List<String> env, String workdir) {
        String execId = createExec(container, cmd, env, workdir);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ResultCallback.Adapter<Frame> cb = new ResultCallback.Adapter<>() {
            @Override
            public void onNext(Frame f) {
                if (f.getStreamType() == StreamType.STDERR) {
                    err.writeBytes(f.getPayload());
                } else {
                    out.writeBytes(f.getPayload());
                }
            }
        };
        try {
            call("exec", () -> client.execStartCmd(execId).exec(cb)).awaitCompletion();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for an exec", e);
        } finally {
            try {
                cb.close();
            } catch (IOException ignored) {
                // already complete
            }
        }
        return new RawExec(out.toByteArray(), err.toByteArray(), exitCode(execId));
    }

    /**
     * Creates an exec. A container that is gone is {@code 404 not-found}; one that is not
     * running (stopped, paused) is {@code 409 sandbox-not-running}.
     */
    String createExec(String container, List<String> cmd, List<String> env, String workdir) {
        try {
            return call("exec create", () -> client.execCreateCmd(container)
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
            throw new ProblemException(409, "sandbox-not-running", "Sandbox " + container + " is not running.",
                    java.util.Map.of(), e);
        }
    }

    static ProblemException gone(String container, Throwable cause) {
        return new ProblemException(404, "not-found", "Sandbox " + container + " no longer exists.", java.util.Map.of(), cause);
    }

    /** The exit code of a finished exec; tolerates the short window where the engine still reports it running. */
    int exitCode(String execId) {
        for (int i = 0; ; i++) {
            InspectExecResponse r = call("exec inspect", () -> client.inspectExecCmd(execId).exec());
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
        client.close();
        pingClient.close();
    }
}
