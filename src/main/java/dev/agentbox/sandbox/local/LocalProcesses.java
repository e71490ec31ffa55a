package dev.agentbox.sandbox.local;

import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.support.BoundedCapture;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A local sandbox's commands: host processes in the sandbox's folder, each in a process group of
 * its own, with the sandbox's environment.
 */
final class LocalProcesses implements SandboxProcesses {

    private final LocalSandbox sandbox;
    private final LocalSandboxProvider provider;
    private final String id;
    private final Path root;
    private final Map<String, String> baseEnv;

    LocalProcesses(
            LocalSandbox sandbox,
            LocalSandboxProvider provider,
            String id,
            Path root,
            Map<String, String> baseEnv) {
        this.sandbox = sandbox;
        this.provider = provider;
        this.id = id;
        this.root = root;
        this.baseEnv = baseEnv;
    }

    /**
     * How a command starts: in a process group of its own ({@code setsid}), and with every signal
     * at its default disposition where {@code env --default-signal} exists (GNU coreutils 8.31+). A
     * server started in the background ({@code nohup … &}, a non-interactive shell) runs with
     * SIGINT and SIGQUIT ignored, exec passes an ignored signal on, and a shell cannot trap a
     * signal that was ignored when it started: an agent would never see the INT sent to it.
     */
    private static final List<String> LAUNCHER =
            defaultSignalsSupported()
                    ? List.of("setsid", "env", "--default-signal")
                    : List.of("setsid");

    private static boolean defaultSignalsSupported() {
        try {
            Process p =
                    new ProcessBuilder("env", "--default-signal", "true")
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start();
            return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    ProcessBuilder builder(String command, ProcessOptions options) {
        Path cwd = sandbox.resolve(options.cwd().orElse("."), true);
        if (!Files.isDirectory(cwd)) {
            throw new SandboxFileNotFoundException(options.cwd().orElse("."));
        }
        List<String> argv = new ArrayList<>(LAUNCHER);
        argv.addAll(List.of("sh", "-c", command));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile());
        Map<String, String> e = pb.environment();
        e.clear();
        e.put("PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        e.put("HOME", root.toString());
        e.put("LANG", "C.UTF-8");
        e.put("AGENTBOX_WORKSPACE", root.toString());
        e.putAll(baseEnv);
        e.putAll(sandbox.variables());
        e.putAll(options.env());
        return pb;
    }

    /**
     * Runs the command in its own process group with a deadline (its timeout, or the default) and
     * the output cap: at either, the group is killed; this thread then waits only a short grace for
     * the exit. Output past the cap is dropped as it arrives, never kept.
     */
    @Override
    public ExecResult exec(String command, ProcessOptions options) {
        SandboxLimits limits = provider.limits();
        Duration deadline = options.timeout().orElse(limits.defaultExecTimeout());
        ProcessBuilder pb =
                builder(command, options)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        LocalProcess p = LocalProcess.start(provider, id, pb);
        BoundedCapture capture = new BoundedCapture(limits.maxOutputBytes());
        CompletableFuture<Integer> capped = new CompletableFuture<>();
        p.subscribe(
                c -> {
                    byte[] b = c.text().getBytes(StandardCharsets.UTF_8);
                    if (!capture.append(c.stream() == OutputChunk.Stream.STDERR, b, 0, b.length)) {
                        capped.complete(-1);
                    }
                });
        boolean timedOut = false;
        boolean killed = false;
        try {
            CompletableFuture.anyOf(p.onExit(), capped)
                    .get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            timedOut = !capture.overflowed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.kill();
            throw new IllegalStateException("interrupted while waiting for a command", e);
        } catch (ExecutionException e) {
            // the process could not be followed: its exit code below says so
        }
        if (!p.onExit().isDone()) {
            killed = true;
            p.kill();
        }
        int code;
        try {
            code = p.onExit().get(STREAM_GRACE_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            code = 137;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = 137;
        }
        String out = new String(capture.stdout(), StandardCharsets.UTF_8);
        String err = new String(capture.stderr(), StandardCharsets.UTF_8);
        if (timedOut && killed) {
            return new ExecResult(
                    out,
                    err
                            + "\nagentbox: command timed out after "
                            + deadline.toMillis()
                            + "ms and was killed\n",
                    ExecResult.TIMED_OUT,
                    capture.overflowed());
        }
        return new ExecResult(out, err, code, capture.overflowed());
    }

    /** How long an exec that gave up waits for the killed group's exit. */
    private static final long STREAM_GRACE_MS = 2000;

    @Override
    public SandboxProcess spawn(String command, ProcessOptions options) {
        return LocalProcess.start(provider, id, builder(command, options));
    }
}
