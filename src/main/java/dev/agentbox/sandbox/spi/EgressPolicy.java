package dev.agentbox.sandbox.spi;

import java.util.List;

/**
 * What a {@link SandboxPolicy.Network#EGRESS} sandbox may reach: the caller's {@code allow} and
 * {@code deny} entries, in the order given (the order is part of the sandbox key). A destination
 * passes when some allow rule (or the operator's always-allow list) covers it and no deny rule
 * does: deny wins. The operator's list is not stored here; the enforcement point adds it.
 */
public record EgressPolicy(List<EgressRule> allow, List<EgressRule> deny) {

    public EgressPolicy {
        allow = allow == null ? List.of() : List.copyOf(allow);
        deny = deny == null ? List.of() : List.copyOf(deny);
    }

    public static EgressPolicy empty() {
        return new EgressPolicy(List.of(), List.of());
    }

    public boolean isEmpty() {
        return allow.isEmpty() && deny.isEmpty();
    }

    /** Whether the caller's own rules let {@code host:port} through (always-allow not included). */
    public boolean permits(String host, int port) {
        return deny.stream().noneMatch(r -> r.matches(host, port))
                && allow.stream().anyMatch(r -> r.matches(host, port));
    }
}
