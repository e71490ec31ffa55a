package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.agentbox.platform.Incident;
import dev.agentbox.sandbox.ExecGit;
import dev.agentbox.sandbox.ExecResult;
import dev.agentbox.sandbox.FsEntry;
import dev.agentbox.sandbox.FsStat;
import dev.agentbox.sandbox.ProcessOptions;
import dev.agentbox.sandbox.SandboxCapabilities;
import dev.agentbox.sandbox.SandboxEnv;
import dev.agentbox.sandbox.SandboxFileNotFoundException;
import dev.agentbox.sandbox.SandboxFs;
import dev.agentbox.sandbox.SandboxGit;
import dev.agentbox.sandbox.SandboxHandle;
import dev.agentbox.sandbox.SandboxOperationException;
import dev.agentbox.sandbox.SandboxPorts;
import dev.agentbox.sandbox.SandboxProcess;
import dev.agentbox.sandbox.SandboxProcesses;
import dev.agentbox.sandbox.SnapshotRef;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * One container. Commands are {@code sh -c} execs; files go through small POSIX shell
 * scripts (they work with GNU coreutils and BusyBox alike) and, for writes, a tar upload.
 */
final class DockerSandbox implements SandboxHandle, SandboxProcesses, SandboxFs, SandboxEnv, SandboxPorts {

    private static final Logger LOG = Logger.getLogger(DockerSandbox.class.getName());

    /** Private directory inside the sandbox for process-group ids. */
    static final String PROC_DIR = "/tmp/.agentbox/proc";

    private final DockerSandboxProvider provider;
    private final String name;
    private final Map<String, String> env = new ConcurrentHashMap<>();
    private final ExecGit git = new ExecGit(this);

    /** The sandbox env given at create lives in the container's config; {@link #set} adds to it per handle. */
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
    public Map<String, String> current() {
        return Map.copyOf(env);
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
        return p.isEmpty() || p.equals(".") ? DockerSandboxProvider.WORKSPACE : DockerSandboxProvider.WORKSPACE + "/" + p;
    }

    private List<String> envList(ProcessOptions o) {
        if (env.isEmpty() && o.env().isEmpty()) {
            return List.of();
        }
        Map<String, String> merged = new LinkedHashMap<>(env);
        merged.putAll(o.env());
        return merged.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    @Override
    public ExecResult exec(String command, ProcessOptions options) {
        String cwd = abs(options.cwd().orElse("."));
        if (options.timeout().isEmpty()) {
            DockerEngine.RawExec r = provider.engine().exec(name, List.of("sh", "-c", command), envList(options), cwd);
            return result(r, cwd);
        }
        String pid = newProcessId();
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> timer = provider.timers().schedule(() -> {
            timedOut.set(true);
            killGroup(pid);
        }, options.timeout().get().toMillis(), TimeUnit.MILLISECONDS);
        DockerEngine.RawExec r;
        try {
            r = provider.engine().exec(name, wrapped(pid, command), envList(options), cwd);
        } finally {
            timer.cancel(false);
        }
        if (timedOut.get()) {
            return new ExecResult(utf8(r.stdout()), utf8(r.stderr()) + "\nagentbox: command timed out after "
                    + options.timeout().get().toMillis() + "ms and was killed\n", ExecResult.TIMED_OUT);
        }
        return result(r, cwd);
    }

    /**
     * The runtime refuses an exec whose working directory is missing with exit 126 and an
     * OCI "chdir to cwd" message instead of running anything: that is a not-found, not data.
     */
    private static ExecResult result(DockerEngine.RawExec r, String cwd) {
        String out = utf8(r.stdout());
        String err = utf8(r.stderr());
        if (r.exitCode() == 126 && (out + err).contains("chdir to cwd")) {
            throw new SandboxFileNotFoundException(cwd);
        }
        return new ExecResult(out, err, r.exitCode());
    }

    @Override
    public SandboxProcess spawn(String command, ProcessOptions options) {
        String cwd = abs(options.cwd().orElse("."));
        if (options.cwd().isPresent() && script("[ -d \"$1\" ]", cwd).exitCode() != 0) {
            throw new SandboxFileNotFoundException(cwd);
        }
        String pid = newProcessId();
        String execId = provider.engine().createExec(name, wrapped(pid, command), envList(options), cwd);
        DockerProcess p = new DockerProcess(this, pid, execId);
        p.start();
        return p;
    }

    DockerSandboxProvider providerBean() {
        return provider;
    }

    String containerName() {
        return name;
    }

    private static String newProcessId() {
        return "p" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    /**
     * A docker exec's process leads its own process group (measured: pid == pgid == sid), so
     * the wrapper records {@code $$} and execs the command in place; everything it starts,
     * backgrounded or not, stays in that group.
     */
    private static List<String> wrapped(String pid, String command) {
        return List.of("sh", "-c", "mkdir -p " + PROC_DIR + " && echo $$ > " + PROC_DIR + "/" + pid
                + " && exec sh -c \"$1\"", "agentbox", command);
    }

    /**
     * Kills the process group recorded for {@code pid}: waits briefly for the pid file (a kill
     * right after spawn), TERM, up to 1 s grace, KILL. Quiet when the group is gone.
     * ({@code kill -SIG -PGID}: dash's kill builtin rejects {@code --}.)
     */
    void killGroup(String pid) {
        String f = PROC_DIR + "/" + pid;
        String script = "f=" + f + "; i=0; while [ ! -s $f ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done; "
                + "p=$(cat $f 2>/dev/null); [ -n \"$p\" ] || exit 0; "
                + "kill -TERM -$p 2>/dev/null || { rm -f $f; exit 0; }; "
                + "i=0; while kill -0 -$p 2>/dev/null && [ $i -lt 20 ]; do sleep 0.05; i=$((i+1)); done; "
                + "kill -0 -$p 2>/dev/null && kill -KILL -$p 2>/dev/null; rm -f $f; exit 0";
        try {
            provider.engine().exec(name, List.of("sh", "-c", script), List.of(), "/");
        } catch (dev.agentbox.api.ProblemException e) {
            if (e.status() != 404 && e.status() != 409) {
                throw e;
            }
            // the container is gone or stopped, and with it the process group
        }
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    // ---- fs ----

    /** Runs a script with the path arguments as positional parameters (no quoting games). */
    private DockerEngine.RawExec script(String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", script, "agentbox"));
        cmd.addAll(Arrays.asList(args));
        return provider.engine().exec(name, cmd, List.of("LC_ALL=C"), "/");
    }

    @Override
    public byte[] readBytes(String path) {
        String p = abs(path);
        DockerEngine.RawExec r = script("[ -e \"$1\" ] || exit 2; exec cat -- \"$1\"", p);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(p);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("read " + p, utf8(r.stderr()));
        }
        return r.stdout();
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
            DockerEngine.run("copy to container", () -> provider.engine().client().copyArchiveToContainerCmd(name)
                    .withRemotePath("/")
                    .withNoOverwriteDirNonDir(true)
                    .withTarInputStream(new ByteArrayInputStream(tar.toByteArray()))
                    .exec());
        } catch (NotFoundException e) {
            throw DockerEngine.gone(name, e);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            // The engine's response body is for the log; the caller learns which write failed.
            Incident incident = Incident.log(LOG, Level.WARNING, "write " + p + " in " + name + " failed", e);
            throw new SandboxOperationException("write " + p, incident.text("the Docker engine refused the copy"));
        }
    }

    @Override
    public List<FsEntry> list(String path) {
        String p = abs(path);
        DockerEngine.RawExec r = script("[ -e \"$1\" ] || exit 2; cd -- \"$1\" || exit 3; "
                + "for f in * .*; do case \"$f\" in .|..) continue;; esac; "
                + "if [ -L \"$f\" ]; then t=f; elif [ -d \"$f\" ]; then t=d; elif [ -e \"$f\" ]; then t=f; else continue; fi; "
                + "printf '%s/%s\\0' \"$t\" \"$f\"; done", p);
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
            entries.add(new FsEntry(n, (base.equals("/") ? "" : base) + "/" + n,
                    item.charAt(0) == 'd' ? FsEntry.Type.DIR : FsEntry.Type.FILE));
        }
        return entries;
    }

    @Override
    public void mkdir(String path) {
        String p = abs(path);
        DockerEngine.RawExec r = script("mkdir -p -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("mkdir " + p, utf8(r.stderr()));
        }
    }

    @Override
    public void remove(String path) {
        String p = abs(path);
        DockerEngine.RawExec r = script("rm -rf -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("remove " + p, utf8(r.stderr()));
        }
    }

    @Override
    public void rename(String from, String to) {
        String f = abs(from);
        String t = abs(to);
        DockerEngine.RawExec r = script("{ [ -e \"$1\" ] || [ -L \"$1\" ]; } || exit 2; "
                + "mkdir -p -- \"$(dirname -- \"$2\")\" && mv -f -- \"$1\" \"$2\"", f, t);
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
        DockerEngine.RawExec r = script("exec stat -c '%f %s' -- \"$1\"", p);
        if (r.exitCode() == 0) {
            String[] parts = utf8(r.stdout()).strip().split(" ");
            return Optional.of(FsStat.fromMode(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1])));
        }
        String err = utf8(r.stderr());
        if (err.contains("No such file or directory")) {
            return Optional.empty();
        }
        throw new SandboxOperationException("lstat " + p, err);
    }
}
