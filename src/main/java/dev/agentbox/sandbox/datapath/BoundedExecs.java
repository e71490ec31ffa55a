package dev.agentbox.sandbox.datapath;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.datapath.CapturedExec.End;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Execs in one sandbox that end in bounded time with bounded output: each runs under the pid-file
 * wrapper of {@link ProcessGroups}, is waited for in Java up to a deadline, and captures at most an
 * output cap.
 *
 * <p>Invariants: a caller waits at most the deadline plus {@link #STREAM_GRACE}; an exec that timed
 * out, overflowed or was abandoned has its group killed (on the kill pool, never on the caller's
 * thread); an exec that never reported its exit code counts as {@code 137}.
 */
public final class BoundedExecs {

    /**
     * How long a thread that gave up on an exec waits for its stream to end after the kill was
     * sent.
     */
    static final Duration STREAM_GRACE = Duration.ofSeconds(2);

    private final String name;
    private final SandboxLimits limits;
    private final ScriptRunner runner;
    private final ProcessGroups groups;

    /**
     * @param name the sandbox, for messages
     * @param runner how the commands start
     * @param groups how they are killed
     */
    public BoundedExecs(
            String name, SandboxLimits limits, ScriptRunner runner, ProcessGroups groups) {
        this.name = name;
        this.limits = limits;
        this.runner = runner;
        this.groups = groups;
    }

    private SandboxLimits limits() {
        return limits;
    }

    /**
     * What a bounded exec left: output up to the cap, exit code (137 when it never reported one),
     * why it ended.
     */
    public record Outcome(byte[] stdout, byte[] stderr, int exitCode, End end, boolean truncated) {}

    /**
     * Runs {@code scriptAndArgs} (a script, then its positional parameters) under the pid-file
     * wrapper with a Java-side deadline and output cap; see {@link #exec}.
     */
    public Outcome bounded(
            List<String> scriptAndArgs, List<String> env, String cwd, Duration deadline, long cap) {
        String pid = ProcessGroups.newProcessId();
        CapturedExec call = runner.start(java.util.Optional.of(pid), scriptAndArgs, env, cwd, cap);
        End end = End.DEADLINE;
        boolean killed = false;
        try {
            end = call.await(deadline);
            if (end == End.BROKEN) {
                // The helper died mid-command: what it ran is unknown, so it is killed and the
                // caller gets a clear failure (the next command finds a restarted helper, or the
                // engine).
                killed = true;
                groups.killLater(pid);
                throw new ProblemException(
                        ProblemCode.PROVIDER_UNAVAILABLE,
                        "The command in sandbox "
                                + name
                                + " was cut off: "
                                + call.brokenBecause()
                                + ". It was killed; run it again.");
            }
            if (end != End.COMPLETED) {
                killed = true;
                groups.killLater(pid);
                // The stream ends once the group is dead; a sandbox that stalls its kill only
                // costs this short grace.
                call.awaitCompleted(STREAM_GRACE);
            }
        } finally {
            if (!killed && !call.isCompleted()) {
                // Abandoned (interrupted, engine error): nobody waits for it any more.
                groups.killLater(pid);
            }
            call.close();
        }
        // An abandoned caller (its thread interrupted: e.g. an exec whose HTTP client left) reads
        // no exit code: nobody waits for it, and the engine client refuses calls from an
        // interrupted thread (a warning with an incident for every abandoned exec).
        int code =
                call.isCompleted() && !Thread.currentThread().isInterrupted()
                        ? call.exitCode()
                        : 137;
        return new Outcome(
                call.capture().stdout(),
                call.capture().stderr(),
                code,
                end,
                call.capture().overflowed());
    }

    /**
     * Runs a script with the path arguments as positional parameters (no quoting games), with the
     * internal deadline and the output cap: a sandbox that stalls or floods an fs operation gets an
     * error, and the command is killed.
     */
    public Outcome script(String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of(script));
        cmd.addAll(Arrays.asList(args));
        Outcome r =
                bounded(
                        cmd,
                        List.of("LC_ALL=C"),
                        "/",
                        limits().internalExecTimeout(),
                        limits().maxOutputBytes());
        if (r.end() == End.DEADLINE) {
            throw new SandboxOperationException(
                    args.length == 0 ? "sandbox operation" : "operation on " + args[0],
                    "the sandbox did not answer within "
                            + limits().internalExecTimeout().toMillis()
                            + " ms");
        }
        if (r.truncated()) {
            throw new SandboxOperationException(
                    args.length == 0 ? "sandbox operation" : "operation on " + args[0],
                    "its output exceeded " + limits().maxOutputBytes() + " bytes");
        }
        return r;
    }

    /**
     * Runs {@code command} with {@code sh -c} under the pid-file wrapper so it can be killed as a
     * group, waits in Java for at most {@code deadline}, and captures at most the output cap. Timed
     * out, capped or abandoned (the waiting thread interrupted, a path that failed), its group is
     * killed on the kill pool and this thread waits only a short grace for the stream to end: a
     * command — or a kill — stalled by the sandbox's own binaries never holds it longer.
     *
     * <p>A working directory that is missing is a not-found, not data: the runtime, and the helper
     * alike, refuse such a command with exit 126 and a "chdir to cwd" message instead of running
     * it.
     */
    public ExecResult exec(String command, List<String> env, String cwd, Duration deadline) {
        Outcome r = bounded(List.of(command), env, cwd, deadline, limits().maxOutputBytes());
        String out = utf8(r.stdout());
        String err = utf8(r.stderr());
        if (r.end() == End.DEADLINE) {
            return new ExecResult(
                    out,
                    err
                            + "\nagentbox: command timed out after "
                            + deadline.toMillis()
                            + "ms and was killed\n",
                    ExecResult.TIMED_OUT,
                    r.truncated());
        }
        if (r.exitCode() == 126 && (out + err).contains("chdir to cwd")) {
            throw new SandboxFileNotFoundException(cwd);
        }
        return new ExecResult(out, err, r.exitCode(), r.truncated());
    }

    public static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
