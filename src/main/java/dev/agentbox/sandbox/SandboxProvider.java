package dev.agentbox.sandbox;

/**
 * A backend that makes sandboxes. Implementations are application-scoped CDI beans,
 * looked up by {@link #name()} through {@link SandboxProviders}.
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
     * A live check of the backend (e.g. a ping of the Docker engine). Must return within a
     * few seconds and never throw: an unreachable backend is {@code false}.
     */
    boolean available();
}
