package dev.agentbox.sandbox.datapath;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.datapath.CapturedExec.End;
import dev.agentbox.sandbox.spi.ProcessSignal;
import dev.agentbox.sandbox.spi.SandboxLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The process groups of one sandbox: every command agentbox starts there runs under a wrapper (or,
 * over the channel, the helper) that records its group leader in a pid file under {@link
 * #PROC_DIR}, and is killed as a group through that file. The signalling script runs by the
 * provider's {@link ScriptRunner}; Docker's retries through the engine when its helper died under
 * the kill.
 *
 * <p>Invariants: a kill never blocks the caller on the sandbox ({@link #killLater} runs on the kill
 * pool, and {@link #killGroup} bounds each step by the internal deadline); only {@code /bin/sh} and
 * its builtins run to find and signal a group, so a sandbox that replaced its other binaries cannot
 * stall a kill; a group whose sandbox is gone counts as killed.
 */
public final class ProcessGroups {

    /** Private directory inside the sandbox for process-group ids. */
    public static final String PROC_DIR = "/tmp/.agentbox/proc";

    /** TERM to KILL. */
    static final Duration KILL_GRACE = Duration.ofSeconds(1);

    /** How long a kill waits for the pid file of a command that is only just starting. */
    static final Duration PIDFILE_WAIT = Duration.ofSeconds(3);

    private static final Logger LOG = Logger.getLogger(ProcessGroups.class.getName());

    private final String name;
    private final SandboxLimits limits;
    private final Executor killPool;
    private final ScriptRunner runner;
    private final Optional<ScriptRunner> afterBreak;

    /**
     * @param name the sandbox, for messages
     * @param killPool where {@link #killLater} kills
     * @param runner how the signalling script runs
     * @param afterBreak how it runs once more when {@code runner}'s path broke under it
     */
    public ProcessGroups(
            String name,
            SandboxLimits limits,
            Executor killPool,
            ScriptRunner runner,
            Optional<ScriptRunner> afterBreak) {
        this.name = name;
        this.limits = limits;
        this.killPool = killPool;
        this.runner = runner;
        this.afterBreak = afterBreak;
    }

    private SandboxLimits limits() {
        return limits;
    }

    public static String newProcessId() {
        return "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    /**
     * A docker exec's process leads its own process group (measured: pid == pgid == sid), so the
     * wrapper records {@code $$} and execs the command in place; everything it starts, backgrounded
     * or not, stays in that group.
     */
    public static List<String> wrapped(String pid, String command) {
        return List.of(
                "sh",
                "-c",
                "mkdir -p "
                        + PROC_DIR
                        + " && echo $$ > "
                        + PROC_DIR
                        + "/"
                        + pid
                        + " && exec sh -c \"$1\"",
                "agentbox",
                command);
    }

    /**
     * The wrapper of a bounded exec: records its {@code $$} (the group leader, as in {@link
     * #wrapped}), runs the script with its parameters ({@code $0} = agentbox) in a child shell of
     * the same group, and removes the pid file when it ends by itself. Only {@code /bin/sh} and its
     * builtins run before the script (plus {@code mkdir} once).
     */
    public static List<String> boundedWrapper(String pid, List<String> scriptAndArgs) {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                "/bin/sh",
                                "-c",
                                "d="
                                        + PROC_DIR
                                        + "; f=$d/$1; shift; s=$1; shift; "
                                        + "[ -d $d ] || mkdir -p $d; echo $$ > $f; /bin/sh -c \"$s\" agentbox \"$@\"; r=$?; rm -f $f; exit $r",
                                "agentbox",
                                pid));
        cmd.addAll(scriptAndArgs);
        return cmd;
    }

    /**
     * Kills the group of {@code pid} on the kill pool: the caller does not wait for a kill a
     * sandbox may stall.
     */
    public void killLater(String pid) {
        try {
            killPool.execute(
                    () -> {
                        try {
                            killGroup(pid);
                        } catch (RuntimeException e) {
                            LOG.log(Level.FINE, "killing " + pid + " in " + name, e);
                        }
                    });
        } catch (RejectedExecutionException e) {
            LOG.log(
                    Level.WARNING,
                    "kill pool saturated; process group {0} in {1} is left running",
                    new Object[] {pid, name});
        }
    }

    /**
     * Kills the process group recorded for {@code pid}: TERM, up to {@link #KILL_GRACE} for it to
     * go, then KILL. Each step is one exec of {@code /bin/sh} builtins only ({@code read}, {@code
     * kill}) with the internal deadline, so a sandbox that replaced {@code cat}, {@code kill} or
     * {@code sleep} cannot stall it; the pacing is done here, in Java. Waits up to {@link
     * #PIDFILE_WAIT} for the pid file (a kill right after spawn). Quiet when the group or the
     * container is gone. Residual risk: a sandbox that replaced {@code /bin/sh} itself makes each
     * step time out (bounded, on this thread only) and keeps its process.
     */
    public void killGroup(String pid) {
        String f = PROC_DIR + "/" + pid;
        long waitUntil = System.nanoTime() + PIDFILE_WAIT.toNanos();
        int rc;
        while ((rc = signal(f, "TERM")) == NO_PIDFILE && System.nanoTime() < waitUntil) {
            sleep(50);
        }
        if (rc != 0) {
            return;
        }
        long graceUntil = System.nanoTime() + KILL_GRACE.toNanos();
        while (System.nanoTime() < graceUntil) {
            sleep(50);
            if (signal(f, "0") != 0) {
                return;
            }
        }
        signal(f, "KILL");
    }

    /**
     * Sends {@code signal} once to the group recorded for {@code pid}, waiting up to {@link
     * #PIDFILE_WAIT} for the pid file of a command that is only just starting. Quiet when the group
     * or the container is gone. The signal's name comes from {@link ProcessSignal}, never from a
     * caller's text, so it is safe inside the script.
     */
    public void signalGroup(String pid, ProcessSignal signal) {
        String f = PROC_DIR + "/" + pid;
        long waitUntil = System.nanoTime() + PIDFILE_WAIT.toNanos();
        while (signal(f, signal.name()) == NO_PIDFILE && System.nanoTime() < waitUntil) {
            sleep(50);
        }
    }

    private static final int NO_PIDFILE = 3;

    /**
     * Sends {@code sig} to the group in pid file {@code f}: 0 sent, 1 the group is gone (pid file
     * removed), {@value #NO_PIDFILE} no pid file yet, -1 the exec failed or did not finish in time.
     */
    private int signal(String f, String sig) {
        String script =
                "f=$1; [ -s \"$f\" ] || exit "
                        + NO_PIDFILE
                        + "; read p < \"$f\"; [ -n \"$p\" ] || exit "
                        + NO_PIDFILE
                        + "; kill -"
                        + sig
                        + " -$p 2>/dev/null && { [ "
                        + sig
                        + " != KILL ] || rm -f \"$f\"; exit 0; }; "
                        + "rm -f \"$f\"; exit 1";
        List<String> scriptAndArgs = List.of(script, f);
        int rc = signalVia(runner, scriptAndArgs, sig);
        // A helper that died under this kill must not keep the group alive: once more by the
        // other path, where there is one.
        if (rc == BROKEN) {
            return afterBreak.map(r -> signalVia(r, scriptAndArgs, sig)).orElse(-1);
        }
        return rc;
    }

    private static final int BROKEN = -2;

    private int signalVia(ScriptRunner via, List<String> scriptAndArgs, String sig) {
        CapturedExec call;
        try {
            call = via.start(Optional.empty(), scriptAndArgs, List.of(), "/", 4096);
        } catch (ProblemException e) {
            if (e.code() == ProblemCode.NOT_FOUND || e.code() == ProblemCode.SANDBOX_NOT_RUNNING) {
                return 1; // the sandbox is gone or stopped, and with it the process group
            }
            throw e;
        }
        try {
            End end = call.await(limits().internalExecTimeout());
            if (end == End.BROKEN) {
                return BROKEN;
            }
            if (end != End.COMPLETED) {
                LOG.log(
                        Level.WARNING,
                        "kill -{0} in sandbox {1} did not finish within {2} ms; abandoned",
                        new Object[] {sig, name, limits().internalExecTimeout().toMillis()});
                return -1;
            }
        } finally {
            call.close();
        }
        return call.exitCode();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
