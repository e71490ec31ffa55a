package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.datapath.BoundedExecs;
import dev.agentbox.sandbox.datapath.CapturedExec;
import dev.agentbox.sandbox.datapath.ChannelCall;
import dev.agentbox.sandbox.datapath.ChannelProcess;
import dev.agentbox.sandbox.datapath.ProcessEnv;
import dev.agentbox.sandbox.datapath.ProcessGroups;
import dev.agentbox.sandbox.datapath.SandboxPaths;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
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
import dev.agentbox.sandbox.support.ExecGit;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One sandbox pod. Its id is the pod's name. Commands, processes and files go over the pod's
 * sandbox channel ({@link PodChannels}: its helper at the pod's IP, with the sandbox's key),
 * through the shared data path of {@code sandbox.datapath}, exactly as on a Docker sandbox with a
 * channel.
 *
 * <ul>
 *   <li>The channel is the only path: there is no exec through the API server. A pod whose helper
 *       cannot be reached fails every operation with {@code 503 provider-unavailable} saying so;
 *       one that is gone, with {@code 404}.
 *   <li>Ports are reached at the pod's IP ({@link PodPorts}); nothing is published.
 *   <li>Variables {@link #set} here apply to this handle's later commands, as on Docker.
 * </ul>
 */
final class KubernetesSandbox implements SandboxHandle, SandboxProcesses, SandboxEnv {

    private final KubernetesSandboxProvider provider;
    private final String podName;
    private final ProcessEnv env = new ProcessEnv();
    private final ProcessGroups groups;
    private final BoundedExecs execs;
    private final PodFs fs;
    private final PodPorts ports;
    private final ExecGit git = new ExecGit(this);

    KubernetesSandbox(KubernetesSandboxProvider provider, String podName) {
        this.provider = provider;
        this.podName = podName;
        this.groups =
                new ProcessGroups(
                        podName,
                        limits(),
                        task -> provider.channels().workers().execute(task),
                        this::start,
                        Optional.empty());
        this.execs = new BoundedExecs(podName, limits(), this::start, groups);
        this.fs = new PodFs(this, execs);
        this.ports = new PodPorts(provider, podName);
    }

    @Override
    public String id() {
        return podName;
    }

    @Override
    public String provider() {
        return KubernetesSandboxProvider.NAME;
    }

    @Override
    public String workspaceRoot() {
        return SandboxPodSpec.WORKSPACE;
    }

    @Override
    public SandboxCapabilities capabilities() {
        return provider.capabilities();
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
        return ports;
    }

    @Override
    public SandboxEnv env() {
        return this;
    }

    @Override
    public void destroy() {
        provider.destroy(podName);
    }

    /** An egress pod's refusals, from the gateway's pods ({@link PodAudit}); none for others. */
    @Override
    public Optional<dev.agentbox.sandbox.spi.EgressAudit> egressAudit() {
        return provider.egressIp(podName).map(ip -> provider.egress().audit(ip));
    }

    /**
     * An egress pod's brokered secrets go to the gateway's pods ({@link PodEgress#broker}); any
     * other pod has no gateway to hold them.
     */
    @Override
    public void brokerSecrets(Map<String, dev.agentbox.sandbox.spi.BrokeredSecret> byPlaceholder) {
        Optional<String> ip = provider.egressIp(podName);
        if (ip.isPresent()) {
            provider.egress().broker(podName, ip.get(), byPlaceholder);
        } else if (!byPlaceholder.isEmpty()) {
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    "Brokered secrets need policy.network egress.",
                    Map.of("field", "workspace.secrets"),
                    null);
        }
    }

    SandboxLimits limits() {
        return provider.limits();
    }

    String abs(String path) {
        return SandboxPaths.absolute(SandboxPodSpec.WORKSPACE, path);
    }

    /** The pod's channel when it has a usable one now. */
    Optional<SandboxChannel> channel() {
        return provider.channel(podName);
    }

    /** The pod's channel, or why there is none. */
    SandboxChannel requireChannel() {
        return channel().orElseThrow(() -> unreachable(null));
    }

    /**
     * Why nothing reached the pod's helper: the pod is gone ({@code 404}), or its helper does not
     * answer ({@code 503}; a pod without an IP, an image without the helper, a network that drops
     * the traffic). There is no other path to try.
     */
    ProblemException unreachable(ChannelException cause) {
        if (provider.managedPod(podName).isEmpty()) {
            return new ProblemException(ProblemCode.NOT_FOUND, "Sandbox " + podName + " is gone.");
        }
        return ProblemException.providerUnavailable(
                "The helper of sandbox pod "
                        + podName
                        + " (agentbox-sandboxd serve-tcp on port "
                        + provider.settings().network().helperPort()
                        + ") cannot be reached"
                        + (cause == null ? "" : ": " + cause.getMessage())
                        + ". This provider reaches a pod only through its helper.",
                cause);
    }

    /** The {@link dev.agentbox.sandbox.datapath.ScriptRunner} of this pod: its channel only. */
    private CapturedExec start(
            Optional<String> pid,
            List<String> scriptAndArgs,
            List<String> environment,
            String cwd,
            long cap) {
        SandboxChannel ch = requireChannel();
        try {
            return ChannelCall.start(
                    ch, provider.channels().watchdog(), pid, scriptAndArgs, environment, cwd, cap);
        } catch (ChannelException e) {
            throw unreachable(e);
        }
    }

    // The process API

    @Override
    public void set(Map<String, String> vars) {
        env.set(vars);
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

    /**
     * A background process over the channel, under the pid-file wrapper. A channel that failed
     * after the helper got the request may have started it: its group is killed and the caller gets
     * {@code 503}, never a second start.
     */
    @Override
    public SandboxProcess spawn(String command, ProcessOptions options) {
        String cwd = abs(options.cwd().orElse("."));
        if (options.cwd().isPresent() && execs.script("[ -d \"$1\" ]", cwd).exitCode() != 0) {
            throw new SandboxFileNotFoundException(cwd);
        }
        String pid = ProcessGroups.newProcessId();
        SandboxChannel ch = requireChannel();
        try {
            return ChannelProcess.start(
                    ch,
                    podName,
                    pid,
                    limits().processBufferChars(),
                    groups,
                    command,
                    env.forProcess(options),
                    cwd);
        } catch (ChannelException e) {
            if (e.requestSent()) {
                groups.killLater(pid);
                throw ProblemException.providerUnavailable(
                        "Process in sandbox "
                                + podName
                                + " could not be started: "
                                + e.getMessage(),
                        e);
            }
            throw unreachable(e);
        }
    }
}
