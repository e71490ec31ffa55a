package dev.agentbox.sandbox.docker;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.datapath.BoundedExecs;
import dev.agentbox.sandbox.datapath.ChannelProcess;
import dev.agentbox.sandbox.datapath.ProcessEnv;
import dev.agentbox.sandbox.datapath.ProcessGroups;
import dev.agentbox.sandbox.datapath.SandboxPaths;
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
import java.util.Map;
import java.util.Optional;

/**
 * One container, as a sandbox handle. Commands are {@code sh -c} execs: {@link #exec} through
 * {@link BoundedExecs}, {@link #spawn} as a {@link ChannelProcess} (over the sandbox channel) or a
 * {@link DockerProcess} (engine exec); all run under the pid-file wrapper of {@link ProcessGroups},
 * so they can be killed as a group whichever path started them. Files are {@link DockerFs}.
 */
final class DockerSandbox implements SandboxHandle, SandboxProcesses, SandboxEnv, SandboxPorts {

    private final DockerSandboxProvider provider;
    private final String name;
    private final ProcessEnv env = new ProcessEnv();
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
        this.groups =
                new ProcessGroups(
                        name,
                        provider.limits(),
                        task -> provider.engine().ops().execute(task),
                        (pid, script, env, cwd, cap) ->
                                provider.channels().start(name, pid, script, env, cwd, cap),
                        // a helper that died under a kill: once more by the engine
                        Optional.of(
                                (pid, script, env, cwd, cap) ->
                                        provider.channels()
                                                .startByEngine(name, pid, script, env, cwd, cap)));
        this.execs =
                new BoundedExecs(
                        name,
                        provider.limits(),
                        (pid, script, env, cwd, cap) ->
                                provider.channels().start(name, pid, script, env, cwd, cap),
                        groups);
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
    public java.util.Set<String> restoreBrokered(Map<String, String> names) {
        return provider.gateways().restoreBrokered(name, names);
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
        env.set(vars);
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
        return SandboxPaths.absolute(DockerSandboxProvider.WORKSPACE, path);
    }

    /** A bounded exec; see {@link BoundedExecs#exec}. */
    @Override
    public ExecResult exec(String command, ProcessOptions options) {
        return execs.exec(
                command,
                env.forProcess(options),
                abs(options.cwd().orElse(".")),
                options.timeout().orElse(limits().defaultExecTimeout()));
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
            try {
                return ChannelProcess.start(
                        channel.get(),
                        name,
                        pid,
                        limits().processBufferChars(),
                        groups,
                        command,
                        env.forProcess(options),
                        cwd);
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
                                name,
                                ProcessGroups.wrapped(pid, command),
                                env.forProcess(options),
                                cwd);
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
