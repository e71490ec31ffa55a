package dev.agentbox.sandbox.spi;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What a provider's sandboxes can really do. Callers branch on these flags, never on a provider's
 * name. Every flag must be the measured truth: a provider that claims a capability and then no-ops
 * it is a bug, not a degradation.
 *
 * <p>The eleven flags are the public contract of {@code GET /api/v1/providers}. Providers build
 * theirs with {@link #of}, naming what they can do rather than passing eleven positional booleans.
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
        FS("fs"),
        EXEC("exec"),
        ENV("env"),
        PORTS("ports"),
        BACKGROUND_PROCESSES("backgroundProcesses"),
        WRITABLE_STDIN("writableStdin"),
        KILLABLE_PROCESSES("killableProcesses"),
        SNAPSHOTS("snapshots"),
        NETWORK_POLICY("networkPolicy"),
        DURABLE_FILESYSTEM("durableFilesystem"),
        FORK("fork");

        private final String wireName;

        Capability(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    /**
     * Whether a long-lived follower ({@code tail -f}, {@code inotifywait}) may be started: it needs
     * a background process to run in and a kill to end it. With only one of the two it would either
     * block the caller or outlive its reader, so callers poll instead.
     */
    public boolean canFollow() {
        return backgroundProcesses && killableProcesses;
    }

    /** Exactly the named capabilities, every other flag false. */
    public static SandboxCapabilities of(Capability... capabilities) {
        Set<Capability> on =
                capabilities.length == 0
                        ? EnumSet.noneOf(Capability.class)
                        : EnumSet.copyOf(List.of(capabilities));
        return new SandboxCapabilities(
                on.contains(Capability.FS),
                on.contains(Capability.EXEC),
                on.contains(Capability.ENV),
                on.contains(Capability.PORTS),
                on.contains(Capability.BACKGROUND_PROCESSES),
                on.contains(Capability.WRITABLE_STDIN),
                on.contains(Capability.KILLABLE_PROCESSES),
                on.contains(Capability.SNAPSHOTS),
                on.contains(Capability.NETWORK_POLICY),
                on.contains(Capability.DURABLE_FILESYSTEM),
                on.contains(Capability.FORK));
    }
}
