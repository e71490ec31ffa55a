package dev.agentbox.sandbox.spi;

import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A backend that makes sandboxes. Implementations are application-scoped CDI beans, looked up by
 * {@link #name()} through {@link SandboxProviders}; they can also be built directly (with their
 * settings record) outside the server, which is how the conformance suite runs them.
 *
 * <p>Errors: a broken or unreachable backend throws {@link dev.agentbox.problem.ProblemException}
 * {@code provider-unavailable}; an optional operation the provider lacks throws {@link
 * UnsupportedCapabilityException}. A lost race (sandbox gone) is an empty {@link Optional}, never
 * {@code null}.
 */
public interface SandboxProvider {

    /** The stable name used in requests and records, e.g. {@code docker}. */
    String name();

    /** What this provider's sandboxes can do; constant for the provider's lifetime. */
    SandboxCapabilities capabilities();

    /** Whether this provider is switched on by configuration. Disabled providers are invisible. */
    default boolean enabled() {
        return true;
    }

    /**
     * A live check of the backend (e.g. a ping of the Docker engine). Must return within a few
     * seconds and never throw: an unreachable backend is {@code false}.
     */
    boolean available();

    /**
     * Makes a new sandbox. If anything fails after the backend object exists, it is removed before
     * the error propagates. A requested id that is already taken is a {@code 409 sandbox-exists}
     * problem.
     */
    SandboxHandle create(SandboxCreateInput input);

    /** Reconnects to a sandbox by id (starting it if stopped); empty when it is gone. */
    Optional<SandboxHandle> resume(String id);

    /**
     * Makes a new sandbox from a snapshot taken by {@link SandboxHandle#snapshot(String)}. A
     * snapshot that no longer exists is {@code 404 not-found}.
     */
    default SandboxHandle restoreSnapshot(String snapshotId, SandboxCreateInput input) {
        throw new UnsupportedCapabilityException(name(), Capability.SNAPSHOTS);
    }

    /** Deletes a snapshot; a missing snapshot counts as deleted. */
    default void deleteSnapshot(String snapshotId) {
        throw new UnsupportedCapabilityException(name(), Capability.SNAPSHOTS);
    }

    /**
     * Destroys a sandbox and everything running in it. Idempotent: a missing sandbox is success.
     */
    void destroy(String id);

    /**
     * Every sandbox this provider manages (labelled {@code dev.agentbox.managed=true}), running or
     * not. The reaper uses it to find orphans.
     */
    List<ManagedSandbox> listManaged();

    /**
     * Removes what this provider keeps per tenant beside its sandboxes — the Docker provider's
     * egress gateways and their networks — that belongs to {@code installation} and has served no
     * sandbox for at least {@code idle}, and returns its names; the next sandbox that needs it
     * makes it again. Any server's reaper may call it at any time, also while sandboxes are being
     * made. Default: nothing to reclaim (the Kubernetes gateway is a shared Deployment).
     */
    default List<String> reclaimIdleGateways(String installation, Duration idle) {
        return List.of();
    }
}
