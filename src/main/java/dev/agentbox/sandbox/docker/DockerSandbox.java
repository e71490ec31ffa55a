package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.agentbox.platform.Incident;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.docker.DockerEngine.ExecCall.End;
import dev.agentbox.sandbox.spi.ExecGit;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FileTooLargeException;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxEnv;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxGit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.spi.SnapshotRef;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * One container. Commands are {@code sh -c} execs; files go through small POSIX shell scripts (they
 * work with GNU coreutils and BusyBox alike) and, for writes, a tar upload.
 */
final class DockerSandbox
        implements SandboxHandle, SandboxProcesses, SandboxFs, SandboxEnv, SandboxPorts {

    /** Private directory inside the sandbox for process-group ids. */
    static final String PROC_DIR = "/tmp/.agentbox/proc";

    private static final Logger LOG = Logger.getLogger(DockerSandbox.class.getName());

    /**
     * How long a thread that gave up on an exec waits for its stream to end after the kill was
     * sent.
     */
    static final Duration STREAM_GRACE = Duration.ofSeconds(2);

    /** TERM to KILL. */
    static final Duration KILL_GRACE = Duration.ofSeconds(1);

    /** How long a kill waits for the pid file of a command that is only just starting. */
    static final Duration PIDFILE_WAIT = Duration.ofSeconds(3);

    private final DockerSandboxProvider provider;
    private final String name;
    private final Map<String, String> env = new ConcurrentHashMap<>();
    private final ExecGit git = new ExecGit(this);

    /**
     * The sandbox env given at create lives in the container's config; {@link #set} adds to it per
     * handle.
     */
    DockerSandbox(DockerSandboxProvider provider, String name) {
        this.provider = provider;
        this.name = name;
    }

    // ---- handle ----

    @Override
    public String id() {
        return name;
    }

    @Override
    public String provider() {
        return DockerSandboxProvider.NAME;
    }

    @Override
    public String workspaceRoot() {
        return DockerSandboxProvider.WORKSPACE;
    }

    @Override
    public SandboxCapabilities capabilities() {
        return provider.capabilities();
    }

    @Override
    public SandboxFs fs() {
        return this;
    }

    @Override
    public SandboxProcesses process() {
        return this;
    }

    @Override
    public SandboxGit git() {
        return git;
    }

    @Override
    public SandboxPorts ports() {
        return this;
    }

    @Override
    public SandboxEnv env() {
        return this;
    }

    @Override
    public SnapshotRef snapshot(Optional<String> label) {
        return provider.snapshot(name, label);
    }

    @Override
    public SandboxHandle fork() {
        return provider.fork(name);
    }

    @Override
    public void destroy() {
        provider.destroy(name);
    }

    // ---- env / ports ----

    @Override
    public void set(Map<String, String> vars) {
        env.putAll(vars);
    }

    @Override
    public Channel connect(int port) {
        return new Channel(provider.portUrl(name, port), Map.of());
    }

    // ---- processes ----

    static String abs(String path) {
        if (path.startsWith("/")) {
            return path;
        }
        String p = path.startsWith("./") ? path.substring(2) : path;
        return p.isEmpty() || p.equals(".")
                ? DockerSandboxProvider.WORKSPACE
                : DockerSandboxProvider.WORKSPACE + "/" + p;
    }

    private List<String> envList(ProcessOptions o) {
        if (env.isEmpty() && o.env().isEmpty()) {
            return List.of();
        }
        Map<String, String> merged = new LinkedHashMap<>(env);
        merged.putAll(o.env());
        return merged.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    /**
     * Runs the command under the pid-file wrapper so it can be killed as a group, waits in Java for
     * at most its timeout (or the default deadline), and captures at most the output cap. Timed
     * out, capped or abandoned (the waiting thread interrupted, an engine error), its group is
     * killed on the kill pool and this thread waits only a short grace for the stream to end: a
     * command — or a kill — stalled by the sandbox's own binaries never holds it longer.
     */
    @Override
    public ExecResult exec(String command, ProcessOptions options) {
        String cwd = abs(options.cwd().orElse("."));
        Duration deadline = options.timeout().orElse(limits().defaultExecTimeout());
        Outcome r =
                bounded(
                        List.of(command),
                        envList(options),
                        cwd,
                        deadline,
                        limits().maxOutputBytes());
        if (r.end() == End.DEADLINE) {
            return new ExecResult(
                    utf8(r.stdout()),
                    utf8(r.stderr())
                            + "\nagentbox: command timed out after "
                            + deadline.toMillis()
                            + "ms and was killed\n",
                    ExecResult.TIMED_OUT,
                    r.truncated());
        }
        return result(r, cwd);
    }

    /**
     * The runtime refuses an exec whose working directory is missing with exit 126 and an OCI
     * "chdir to cwd" message instead of running anything: that is a not-found, not data.
     */
    private static ExecResult result(Outcome r, String cwd) {
        String out = utf8(r.stdout());
        String err = utf8(r.stderr());
        if (r.exitCode() == 126 && (out + err).contains("chdir to cwd")) {
            throw new SandboxFileNotFoundException(cwd);
        }
        return new ExecResult(out, err, r.exitCode(), r.truncated());
    }

    /**
     * What a bounded exec left: output up to the cap, exit code (137 when it never reported one),
     * why it ended.
     */
    record Outcome(byte[] stdout, byte[] stderr, int exitCode, End end, boolean truncated) {}

    /**
     * Runs {@code scriptAndArgs} (a script, then its positional parameters) under the pid-file
     * wrapper with a Java-side deadline and output cap; see {@link #exec}.
     */
    Outcome bounded(
            List<String> scriptAndArgs, List<String> env, String cwd, Duration deadline, long cap) {
        String pid = newProcessId();
        DockerEngine.ExecCall call =
                provider.engine().start(name, boundedWrapper(pid, scriptAndArgs), env, cwd, cap);
        End end = End.DEADLINE;
        boolean killed = false;
        try {
            end = call.await(deadline);
            if (end != End.COMPLETED) {
                killed = true;
                killLater(pid);
                // The stream ends once the group is dead; a sandbox that stalls its kill only
                // costs this short grace.
                call.awaitCompleted(STREAM_GRACE);
            }
        } finally {
            if (!killed && !call.isCompleted()) {
                // Abandoned (interrupted, engine error): nobody waits for it any more.
                killLater(pid);
            }
            call.close();
        }
        int code = call.isCompleted() ? provider.engine().exitCode(call.execId()) : 137;
        return new Outcome(
                call.capture().stdout(),
                call.capture().stderr(),
                code,
                end,
                call.capture().overflowed());
    }

    private SandboxLimits limits() {
        return provider.limits();
    }

    @Override
    public SandboxProcess spawn(String command, ProcessOptions options) {
        String cwd = abs(options.cwd().orElse("."));
        if (options.cwd().isPresent() && script("[ -d \"$1\" ]", cwd).exitCode() != 0) {
            throw new SandboxFileNotFoundException(cwd);
        }
        String pid = newProcessId();
        String execId =
                provider.engine().createExec(name, wrapped(pid, command), envList(options), cwd);
        DockerProcess p = new DockerProcess(this, pid, execId);
        p.start();
        return p;
    }

    DockerSandboxProvider providerBean() {
        return provider;
    }

    private static String newProcessId() {
        return "p" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    /**
     * A docker exec's process leads its own process group (measured: pid == pgid == sid), so the
     * wrapper records {@code $$} and execs the command in place; everything it starts, backgrounded
     * or not, stays in that group.
     */
    private static List<String> wrapped(String pid, String command) {
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
    private static List<String> boundedWrapper(String pid, List<String> scriptAndArgs) {
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
    private void killLater(String pid) {
        try {
            provider.engine()
                    .ops()
                    .execute(
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
    void killGroup(String pid) {
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
        DockerEngine.ExecCall call;
        try {
            call =
                    provider.engine()
                            .start(
                                    name,
                                    List.of("/bin/sh", "-c", script, "agentbox", f),
                                    List.of(),
                                    "/",
                                    4096);
        } catch (ProblemException e) {
            if (e.code() == ProblemCode.NOT_FOUND || e.code() == ProblemCode.SANDBOX_NOT_RUNNING) {
                return 1; // the container is gone or stopped, and with it the process group
            }
            throw e;
        }
        try {
            if (call.await(limits().internalExecTimeout()) != End.COMPLETED) {
                LOG.log(
                        Level.WARNING,
                        "kill -{0} in sandbox {1} did not finish within {2} ms; abandoned",
                        new Object[] {sig, name, limits().internalExecTimeout().toMillis()});
                return -1;
            }
        } finally {
            call.close();
        }
        return provider.engine().exitCode(call.execId());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    // ---- fs ----

    /**
     * Runs a script with the path arguments as positional parameters (no quoting games), with the
     * internal deadline and the output cap: a sandbox that stalls or floods an fs operation gets an
     * error, and the command is killed.
     */
    private Outcome script(String script, String... args) {
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

    @Override
    public byte[] readBytes(String path) {
        FileRead read = openRead(path, limits().maxReadBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(read.size(), 1 << 20));
        try {
            read.transferTo(out);
        } catch (IOException e) {
            throw new SandboxOperationException("read " + abs(path), e.getMessage());
        }
        return out.toByteArray();
    }

    /**
     * {@code stat -L} first (type and size of what a read would open), then a bounded stream; see
     * {@link FileRead}.
     */
    @Override
    public FileRead openRead(String path, long maxBytes) {
        String p = abs(path);
        Outcome r = script("[ -e \"$1\" ] || exit 2; exec stat -L -c '%f %s' -- \"$1\"", p);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(p);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("read " + p, utf8(r.stderr()));
        }
        String[] parts = utf8(r.stdout()).strip().split(" ");
        FsStat st = FsStat.fromMode(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1]));
        if (st.type() != FsStat.Type.FILE) {
            if (st.type() == FsStat.Type.DIR) {
                throw new SandboxOperationException("read " + p, "it is a directory");
            }
            throw FileTooLargeException.notRegular(
                    p, FileTooLargeException.kind(st.mode()), maxBytes);
        }
        long size = st.size().orElse(0);
        if (size > maxBytes) {
            throw FileTooLargeException.overLimit(p, size, maxBytes);
        }
        return new DockerFileRead(this, p, size, maxBytes);
    }

    /**
     * Starts the reading command of a {@link DockerFileRead}: wrapped, so it can be killed as a
     * group.
     */
    DockerEngine.StreamCall startRead(String pid, String path, long maxBytes) {
        // -f again right before the read narrows the window for a FIFO swapped in after the
        // stat; head -c bounds a file that grew. What remains (a swap between the two) is
        // caught by the reader's silence deadline and byte count.
        return provider.engine()
                .startStream(
                        name,
                        boundedWrapper(
                                pid,
                                List.of(
                                        "[ -f \"$1\" ] || exit 5; exec head -c "
                                                + (maxBytes + 1)
                                                + " -- \"$1\"",
                                        path)),
                        List.of("LC_ALL=C"),
                        "/");
    }

    void kill(String pid) {
        killLater(pid);
    }

    String newReadId() {
        return newProcessId();
    }

    @Override
    public void write(String path, byte[] data) {
        String p = abs(path);
        ByteArrayOutputStream tar = new ByteArrayOutputStream(data.length + 2048);
        try (TarArchiveOutputStream out = new TarArchiveOutputStream(tar)) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            TarArchiveEntry e = new TarArchiveEntry(p.substring(1));
            e.setSize(data.length);
            e.setMode(0100644);
            e.setModTime(System.currentTimeMillis());
            out.putArchiveEntry(e);
            out.write(data);
            out.closeArchiveEntry();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            DockerEngine.run(
                    "copy to container",
                    () ->
                            provider.engine()
                                    .client()
                                    .copyArchiveToContainerCmd(name)
                                    .withRemotePath("/")
                                    .withNoOverwriteDirNonDir(true)
                                    .withTarInputStream(new ByteArrayInputStream(tar.toByteArray()))
                                    .exec());
        } catch (NotFoundException e) {
            throw DockerEngine.gone(name, e);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            // The engine's response body is for the log; the caller learns which write failed.
            Incident incident =
                    Incident.log(LOG, Level.WARNING, "write " + p + " in " + name + " failed", e);
            throw new SandboxOperationException(
                    "write " + p, incident.text("the Docker engine refused the copy"));
        }
    }

    @Override
    public List<FsEntry> list(String path) {
        String p = abs(path);
        Outcome r =
                script(
                        "[ -e \"$1\" ] || exit 2; cd -- \"$1\" || exit 3; "
                                + "for f in * .*; do case \"$f\" in .|..) continue;; esac; "
                                + "if [ -L \"$f\" ]; then t=f; elif [ -d \"$f\" ]; then t=d; elif [ -e \"$f\" ]; then t=f; else continue; fi; "
                                + "printf '%s/%s\\0' \"$t\" \"$f\"; done",
                        p);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(p);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("list " + p, utf8(r.stderr()));
        }
        String base = p.endsWith("/") && p.length() > 1 ? p.substring(0, p.length() - 1) : p;
        List<FsEntry> entries = new ArrayList<>();
        for (String item : utf8(r.stdout()).split("\0")) {
            if (item.length() < 3) {
                continue;
            }
            String n = item.substring(2);
            entries.add(
                    new FsEntry(
                            n,
                            (base.equals("/") ? "" : base) + "/" + n,
                            item.charAt(0) == 'd' ? FsEntry.Type.DIR : FsEntry.Type.FILE));
        }
        return entries;
    }

    @Override
    public void mkdir(String path) {
        String p = abs(path);
        Outcome r = script("mkdir -p -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("mkdir " + p, utf8(r.stderr()));
        }
    }

    @Override
    public void remove(String path) {
        String p = abs(path);
        Outcome r = script("rm -rf -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("remove " + p, utf8(r.stderr()));
        }
    }

    @Override
    public void rename(String from, String to) {
        String f = abs(from);
        String t = abs(to);
        Outcome r =
                script(
                        "{ [ -e \"$1\" ] || [ -L \"$1\" ]; } || exit 2; "
                                + "mkdir -p -- \"$(dirname -- \"$2\")\" && mv -f -- \"$1\" \"$2\"",
                        f,
                        t);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(f);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("rename " + f + " to " + t, utf8(r.stderr()));
        }
    }

    @Override
    public boolean exists(String path) {
        return script("[ -e \"$1\" ]", abs(path)).exitCode() == 0;
    }

    @Override
    public Optional<FsStat> lstat(String path) {
        String p = abs(path);
        Outcome r = script("exec stat -c '%f %s' -- \"$1\"", p);
        if (r.exitCode() == 0) {
            String[] parts = utf8(r.stdout()).strip().split(" ");
            return Optional.of(
                    FsStat.fromMode(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1])));
        }
        String err = utf8(r.stderr());
        if (err.contains("No such file or directory")) {
            return Optional.empty();
        }
        throw new SandboxOperationException("lstat " + p, err);
    }
}
