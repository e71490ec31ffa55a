package dev.agentbox.sandbox.spi;

import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import java.util.Optional;

/**
 * The uniform runtime surface of one sandbox. {@code fs} and {@code process} are always there;
 * optional operations throw {@link UnsupportedCapabilityException} when the provider lacks the
 * capability, never a silent no-op.
 */
public interface SandboxHandle {

    /** Provider-assigned id, used to resume and destroy. */
    String id();

    /** Name of the provider that made it. */
    String provider();

    /**
     * The real path behind the virtual workspace {@code /workspace}: {@code /workspace} inside a
     * container, the sandbox folder on the host for the local provider.
     */
    String workspaceRoot();

    SandboxCapabilities capabilities();

    /**
     * The absolute directory inside the sandbox that holds its runs' journal, err and prompt files
     * (named by the run journal's own rules).
     *
     * <ul>
     *   <li>Shared at most with sandboxes of the same tenant: run identity is (tenant, runId), so a
     *       file named by the runId alone must not be reachable from another tenant's sandbox.
     *   <li>The same for the sandbox's whole life, across resumes and server restarts: a reader on
     *       another server, the exit probe and the prune find a run's journal by it alone.
     * </ul>
     *
     * Default {@value #DEFAULT_JOURNAL_DIRECTORY}: a container's /tmp is its own.
     */
    default String journalDirectory() {
        return DEFAULT_JOURNAL_DIRECTORY;
    }

    /** The journal directory of a sandbox that has a filesystem of its own. */
    String DEFAULT_JOURNAL_DIRECTORY = "/tmp/agentbox-runs";

    SandboxFs fs();

    SandboxProcesses process();

    SandboxGit git();

    SandboxPorts ports();

    SandboxEnv env();

    /**
     * Gives this sandbox's egress gateway its brokered secrets, keyed by placeholder, replacing
     * those it had (an empty map removes them). Providers without an egress gateway refuse any.
     */
    default void brokerSecrets(java.util.Map<String, BrokeredSecret> byPlaceholder) {
        if (!byPlaceholder.isEmpty()) {
            throw new UnsupportedCapabilityException(
                    provider(), SandboxCapabilities.Capability.NETWORK_POLICY);
        }
    }

    /**
     * Gives this sandbox's egress gateway back the brokered secrets it lost (it was made again):
     * the values this server holds for the sandbox, and for every other placeholder of {@code
     * names} (placeholder to variable) an entry without a value, so that a request carrying it is
     * refused with the variable named instead of passed on bare. Returns the variables given a
     * value; none where the provider brokers nothing.
     */
    default java.util.Set<String> restoreBrokered(java.util.Map<String, String> names) {
        return java.util.Set.of();
    }

    /**
     * The refusals of this sandbox's egress gateway; empty unless its network is {@code egress} on
     * a provider that audits it.
     */
    default Optional<EgressAudit> egressAudit() {
        return Optional.empty();
    }

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
