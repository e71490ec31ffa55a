package dev.agentbox.sandbox.local;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessOutput;
import dev.agentbox.sandbox.spi.ProcessSignal;
import dev.agentbox.sandbox.spi.SandboxProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A host process started under {@code setsid}: it leads its own session and process group (pgid ==
 * pid), so {@code kill -- -pid} reaches everything it started.
 */
final class LocalProcess implements SandboxProcess {

    private final Process process;
    private final ProcessOutput output;
    private final OutputStream stdin;

    private LocalProcess(Process process, int bufferChars) {
        this.process = process;
        this.output = new ProcessOutput(bufferChars);
        this.stdin = process.getOutputStream();
    }

    static LocalProcess start(LocalSandboxProvider provider, String sandboxId, ProcessBuilder pb) {
        Process proc;
        try {
            proc = pb.start();
        } catch (IOException e) {
            throw ProblemException.providerUnavailable(
                    "Cannot start a local process (is setsid installed?)", e);
        }
        LocalProcess p = new LocalProcess(proc, provider.limits().processBufferChars());
        Thread out =
                provider.threads()
                        .newThread(() -> p.pump(proc.getInputStream(), OutputChunk.Stream.STDOUT));
        Thread err =
                provider.threads()
                        .newThread(() -> p.pump(proc.getErrorStream(), OutputChunk.Stream.STDERR));
        out.start();
        err.start();
        proc.onExit()
                .thenRun(
                        () -> {
                            try {
                                out.join();
                                err.join();
                                p.output.exited(proc.exitValue());
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                p.output.failed(e);
                            }
                        });
        provider.track(sandboxId, p);
        return p;
    }

    private void pump(InputStream in, OutputChunk.Stream stream) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                output.bytes(stream, buf, 0, n);
            }
        } catch (IOException e) {
            // stream closed: the process is gone
        }
    }

    @Override
    public String id() {
        return Long.toString(process.pid());
    }

    @Override
    public AutoCloseable subscribe(OutputListener listener) {
        return output.subscribe(listener);
    }

    @Override
    public void writeStdin(String text) {
        try {
            stdin.write(text.getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("stdin of process " + id() + " is closed", e);
        }
    }

    @Override
    public void closeStdin() {
        try {
            stdin.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public CompletableFuture<Integer> onExit() {
        return output.onExit();
    }

    /** TERM to the group, up to 1 s grace, then KILL; quiet when the group is gone. */
    @Override
    public void kill() {
        long pgid = process.pid();
        if (!signal("TERM", pgid)) {
            return;
        }
        boolean alive = true;
        for (int i = 0; i < 20 && (alive = signal("0", pgid)); i++) {
            sleep(50);
        }
        if (alive) {
            signal("KILL", pgid);
        }
        closeStdin();
    }

    /** Sends {@code signal} once to the group; quiet when the group is gone. */
    @Override
    public void signal(ProcessSignal signal) {
        signal(signal.name(), process.pid());
    }

    private static boolean signal(String sig, long pgid) {
        try {
            Process k =
                    new ProcessBuilder("kill", "-" + sig, "--", "-" + pgid)
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start();
            return k.waitFor(5, TimeUnit.SECONDS) && k.exitValue() == 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
