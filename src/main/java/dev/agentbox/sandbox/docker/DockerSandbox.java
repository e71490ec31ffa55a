package dev.agentbox.sandbox.docker;

import static dev.agentbox.sandbox.docker.BoundedExecs.utf8;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.docker.BoundedExecs.Outcome;
import dev.agentbox.sandbox.docker.CapturedExec.End;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.ProcessSignal;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxEnv;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxGit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.spi.SnapshotRef;
import dev.agentbox.sandbox.support.ExecGit;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One container, as a sandbox handle. Commands are {@code sh -c} execs: {@link #exec} through
 * {@link BoundedExecs}, {@link #spawn} as a {@link ChannelProcess} (over the sandbox channel) or a
 * {@link DockerProcess} (engine exec); all run under the pid-file wrapper of {@link ProcessGroups},
 * so they can be killed as a group whichever path started them. Files are {@link DockerFs}.
 */
final class DockerSandbox implements SandboxHandle, SandboxProcesses, SandboxEnv, SandboxPorts {

    private final DockerSandboxProvider provider;
    private final String name;
    private final Map<String, String> env = new ConcurrentHashMap<>();
    private final ExecGit git = new ExecGit(this);
    private final ProcessGroups groups;
    private final BoundedExecs execs;
    private final DockerFs fs;

    /**
     * The sandbox env given at create lives in the container's config; {@link #set} adds to it per
     * handle.
     */
    DockerSandbox(DockerSandboxProvider provider, String name) {
        this.provider = provider;
        this.name = name;
        this.groups = new ProcessGroups(provider, name);
        this.execs = new BoundedExecs(provider, name, groups);
        this.fs = new DockerFs(provider, name, execs, groups);
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

    /**
     * The provider's, plus {@code writableStdin} while this sandbox has a channel: its processes'
     * stdin is a pipe the helper closes on request, so end of input really arrives.
     */
    @Override
    public SandboxCapabilities capabilities() {
        return provider.channels().of(name).isPresent()
                ? DockerSandboxProvider.CAPABILITIES_WITH_CHANNEL
                : provider.capabilities();
    }

    @Override
    public SandboxFs fs() {
        return fs;
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
    public void brokerSecrets(Map<String, dev.agentbox.sandbox.spi.BrokeredSecret> byPlaceholder) {
        provider.gateways().broker(name, byPlaceholder);
    }

    @Override
    public Optional<dev.agentbox.sandbox.spi.EgressAudit> egressAudit() {
        return provider.gateways().audit(name);
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
    public Optional<Channel> published(int port) {
        return provider.portUrl(name, port).map(url -> new Channel(url, Map.of()));
    }

    @Override
    public InetSocketAddress address(int port) {
        return provider.portAddress(name, port);
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
                execs.bounded(
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

    private SandboxLimits limits() {
        return provider.limits();
    }

    @Override
    public SandboxProcess spawn(String command, ProcessOptions options) {
        String cwd = abs(options.cwd().orElse("."));
        if (options.cwd().isPresent() && execs.script("[ -d \"$1\" ]", cwd).exitCode() != 0) {
            throw new SandboxFileNotFoundException(cwd);
        }
        String pid = ProcessGroups.newProcessId();
        Optional<SandboxChannel> channel = provider.channels().of(name);
        if (channel.isPresent()) {
            ChannelProcess p = new ChannelProcess(this, pid);
            try {
                p.attach(
                        channel.get()
                                .exec(
                                        ProcessGroups.wrapped(pid, command),
                                        envList(options),
                                        cwd,
                                        true,
                                        p));
                return p;
            } catch (ChannelException e) {
                if (e.requestSent()) {
                    killGroup(pid);
                    throw new ProblemException(
                            ProblemCode.PROVIDER_UNAVAILABLE,
                            "Process in sandbox "
                                    + name
                                    + " could not be started: "
                                    + e.getMessage());
                }
                // not started: the engine starts it instead
            }
        }
        String execId =
                provider.engine()
                        .createExec(
                                name, ProcessGroups.wrapped(pid, command), envList(options), cwd);
        DockerProcess p = new DockerProcess(this, pid, execId);
        p.start();
        return p;
    }

    DockerSandboxProvider providerBean() {
        return provider;
    }

    /** Kills the process group of a spawned process; see {@link ProcessGroups#killGroup}. */
    void killGroup(String pid) {
        groups.killGroup(pid);
    }

    /**
     * Sends one signal to the process group of a spawned process; see {@link
     * ProcessGroups#signalGroup}.
     */
    void signalGroup(String pid, ProcessSignal signal) {
        groups.signalGroup(pid, signal);
    }
}
