package dev.agentbox.sandbox.spi;

import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;

/**
 * Thrown when an optional operation is asked of a provider that lacks the capability. Never
 * replaced by a silent no-op: a caller that ignored the capability flags must learn it loudly.
 * Mapped to {@code 422 unsupported-capability}.
 */
public class UnsupportedCapabilityException extends RuntimeException {

    private final String provider;
    private final Capability capability;

    public UnsupportedCapabilityException(String provider, Capability capability) {
        super(
                "Sandbox provider \""
                        + provider
                        + "\" does not support the \""
                        + capability.wireName()
                        + "\" capability.");
        this.provider = provider;
        this.capability = capability;
    }

    public String provider() {
        return provider;
    }

    public Capability capability() {
        return capability;
    }
}
