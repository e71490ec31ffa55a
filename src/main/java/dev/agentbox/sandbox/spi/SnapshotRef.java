package dev.agentbox.sandbox.spi;

import java.util.Optional;

/**
 * An opaque reference to a stored snapshot, usable with {@link SandboxProvider#restoreSnapshot}.
 */
public record SnapshotRef(String id, Optional<String> label) {}
