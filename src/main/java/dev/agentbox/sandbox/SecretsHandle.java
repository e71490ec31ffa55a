package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.EgressAudit;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxEnv;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxGit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.spi.SnapshotRef;
import dev.agentbox.sandbox.support.ExecGit;
import java.util.Optional;

/**
 * A handle whose commands see the sandbox's secrets: every {@code exec} and {@code spawn} first
 * sources the sandbox's tmpfs secrets file ({@link SandboxSecrets}). Because the file is inside the
 * sandbox, a command run through any server sees the same secrets. Commands also see the
 * environment recorded for the sandbox ({@link EnvOverlay}), read from its record whenever a handle
 * is opened.
 */
public final class SecretsHandle implements SandboxHandle {

    private final SandboxHandle raw;
    private final SandboxProcesses processes;

    public SecretsHandle(SandboxHandle raw) {
        this(raw, EnvOverlay.NONE);
    }

    /**
     * A handle whose commands also see {@code env}, the environment recorded for the sandbox with
     * {@code PATCH /sandboxes/{key}/env} (see {@link EnvOverlay} for the layering).
     */
    public SecretsHandle(SandboxHandle raw, EnvOverlay env) {
        this.raw = raw;
        String prefix = SandboxSecrets.sourcing(raw.id());
        SandboxProcesses inner = raw.process();
        this.processes =
                new SandboxProcesses() {
                    @Override
                    public ExecResult exec(String command, ProcessOptions options) {
                        return inner.exec(
                                env.unsetPrefix(options) + prefix + command, env.apply(options));
                    }

                    @Override
                    public SandboxProcess spawn(String command, ProcessOptions options) {
                        return inner.spawn(
                                env.unsetPrefix(options) + prefix + command, env.apply(options));
                    }
                };
    }

    /** The provider's own handle, without secrets (for infrastructure commands). */
    public SandboxHandle raw() {
        return raw;
    }

    @Override
    public String id() {
        return raw.id();
    }

    @Override
    public String provider() {
        return raw.provider();
    }

    @Override
    public String workspaceRoot() {
        return raw.workspaceRoot();
    }

    @Override
    public SandboxCapabilities capabilities() {
        return raw.capabilities();
    }

    @Override
    public String journalDirectory() {
        return raw.journalDirectory();
    }

    @Override
    public SandboxFs fs() {
        return raw.fs();
    }

    @Override
    public SandboxProcesses process() {
        return processes;
    }

    /**
     * Git whose commands see the secrets: the credential helper of a clone, pull or push reads
     * {@code GIT_TOKEN} from them, and a failure's message is redacted of them.
     */
    @Override
    public SandboxGit git() {
        return new ExecGit(processes, () -> SandboxSecrets.redactorOf(raw));
    }

    @Override
    public SandboxPorts ports() {
        return raw.ports();
    }

    @Override
    public SandboxEnv env() {
        return raw.env();
    }

    @Override
    public Optional<EgressAudit> egressAudit() {
        return raw.egressAudit();
    }

    @Override
    public void brokerSecrets(
            java.util.Map<String, dev.agentbox.sandbox.spi.BrokeredSecret> byPlaceholder) {
        raw.brokerSecrets(byPlaceholder);
    }

    @Override
    public java.util.Set<String> restoreBrokered(java.util.Map<String, String> names) {
        return raw.restoreBrokered(names);
    }

    @Override
    public SnapshotRef snapshot(Optional<String> label) {
        return raw.snapshot(label);
    }

    @Override
    public SandboxHandle fork() {
        return raw.fork();
    }

    @Override
    public void destroy() {
        raw.destroy();
    }
}
