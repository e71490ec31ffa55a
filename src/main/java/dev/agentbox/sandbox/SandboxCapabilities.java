package dev.agentbox.sandbox;

/**
 * What a provider's sandboxes can really do. Callers branch on these flags, never on a
 * provider's name. Every flag must be the measured truth: a provider that claims a
 * capability and then no-ops it is a bug, not a degradation.
 *
 * <p>The eleven flags are the public contract of {@code GET /api/v1/providers}.
 */
public record SandboxCapabilities(
        boolean fs,
        boolean exec,
        boolean env,
        boolean ports,
        boolean backgroundProcesses,
        boolean writableStdin,
        boolean killableProcesses,
        boolean snapshots,
        boolean networkPolicy,
        boolean durableFilesystem,
        boolean fork) {

    /** Names of the capabilities, as used in {@link UnsupportedCapabilityException}. */
    public enum Capability {
        FS("fs"), EXEC("exec"), ENV("env"), PORTS("ports"),
        BACKGROUND_PROCESSES("backgroundProcesses"), WRITABLE_STDIN("writableStdin"),
        KILLABLE_PROCESSES("killableProcesses"), SNAPSHOTS("snapshots"),
        NETWORK_POLICY("networkPolicy"), DURABLE_FILESYSTEM("durableFilesystem"), FORK("fork");

        private final String wireName;

        Capability(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }
}
