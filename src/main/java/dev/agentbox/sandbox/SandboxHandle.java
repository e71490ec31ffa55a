package dev.agentbox.sandbox;

import dev.agentbox.sandbox.SandboxCapabilities.Capability;
import java.util.Optional;

/**
 * The uniform runtime surface of one sandbox. {@code fs} and {@code process} are always
 * there; optional operations throw {@link UnsupportedCapabilityException} when the
 * provider lacks the capability, never a silent no-op.
 */
public interface SandboxHandle {

    /** Provider-assigned id, used to resume and destroy. */
    String id();

    /** Name of the provider that made it. */
    String provider();

    /**
     * The real path behind the virtual workspace {@code /workspace}: {@code /workspace} inside
     * a container, the sandbox folder on the host for the local provider.
     */
    String workspaceRoot();

    SandboxCapabilities capabilities();

    SandboxFs fs();

    SandboxProcesses process();

    SandboxGit git();

    SandboxPorts ports();

    SandboxEnv env();

    /** Captures the current filesystem; capability {@code snapshots}. */
    default SnapshotRef snapshot(Optional<String> label) {
        throw new UnsupportedCapabilityException(provider(), Capability.SNAPSHOTS);
    }

    /** A new sandbox branched from the current state; capability {@code fork}. */
    default SandboxHandle fork() {
        throw new UnsupportedCapabilityException(provider(), Capability.FORK);
    }

    /** Destroys this sandbox; idempotent. */
    void destroy();
}
