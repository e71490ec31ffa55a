package dev.agentbox.sandbox;

import org.eclipse.microprofile.config.Config;

/**
 * What this server accepts in an ensure's {@code policy.egress} ({@code agentbox.egress.*}).
 * Checked by {@link SandboxSpecParser}, like the {@link ResourceCeilings}.
 *
 * @param ipLiteralsAllowed [agentbox.egress.allow-ip-literals] default false: addresses and CIDR
 *     blocks are refused, so a policy names hosts only (an address bypasses the gateway's name
 *     checks and may reach the operator's own networks)
 * @param maxRules [agentbox.egress.max-rules] default 64: the most entries {@code allow} and {@code
 *     deny} hold together; every one is checked on each connection of the sandbox
 */
public record EgressLimits(boolean ipLiteralsAllowed, int maxRules) {

    public static final int DEFAULT_MAX_RULES = 64;

    public EgressLimits {
        if (maxRules < 0) {
            throw new IllegalArgumentException("agentbox.egress.max-rules must not be negative");
        }
    }

    public static EgressLimits defaults() {
        return new EgressLimits(false, DEFAULT_MAX_RULES);
    }

    public static EgressLimits fromConfig(Config c) {
        EgressLimits d = defaults();
        return new EgressLimits(
                c.getOptionalValue("agentbox.egress.allow-ip-literals", Boolean.class)
                        .orElse(d.ipLiteralsAllowed()),
                c.getOptionalValue("agentbox.egress.max-rules", Integer.class)
                        .orElse(d.maxRules()));
    }
}
