package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxEnv;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxGit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.support.ExecGit;

/**
 * One sandbox pod. Its id is the pod's name. Its data path is {@link NoDataPath}: every file,
 * command, environment and port operation throws {@code unsupported-capability} until the
 * in-sandbox helper is reachable over TCP.
 */
final class KubernetesSandbox implements SandboxHandle {

    private final KubernetesSandboxProvider provider;
    private final String podName;
    private final NoDataPath none = new NoDataPath(KubernetesSandboxProvider.NAME);

    KubernetesSandbox(KubernetesSandboxProvider provider, String podName) {
        this.provider = provider;
        this.podName = podName;
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
        return none;
    }

    @Override
    public SandboxProcesses process() {
        return none;
    }

    /** Git is commands in the sandbox: it fails as {@link #process()} does. */
    @Override
    public SandboxGit git() {
        return new ExecGit(none);
    }

    @Override
    public SandboxPorts ports() {
        return none;
    }

    @Override
    public SandboxEnv env() {
        return none;
    }

    @Override
    public void destroy() {
        provider.destroy(podName);
    }
}
