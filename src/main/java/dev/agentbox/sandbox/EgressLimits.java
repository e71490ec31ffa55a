package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.EgressRule;
import java.util.ArrayList;
import java.util.List;
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
 * @param alwaysAllow [agentbox.egress.always-allow] what every egress sandbox may reach besides its
 *     own rules (default the model API hosts of the CLI harnesses)
 * @param brokerModelKeys [agentbox.egress.broker-model-keys] default true: a run's model key given
 *     as a plain string is brokered to its model host ({@link SecretBrokering})
 */
public record EgressLimits(
        boolean ipLiteralsAllowed,
        int maxRules,
        List<EgressRule> alwaysAllow,
        boolean brokerModelKeys) {

    public static final String BROKER_MODEL_KEYS = "agentbox.egress.broker-model-keys";

    /** What {@code agentbox.egress.always-allow} defaults to. */
    public static final List<String> MODEL_API_HOSTS =
            List.of("api.anthropic.com", "api.openai.com");

    public EgressLimits(boolean ipLiteralsAllowed, int maxRules) {
        this(ipLiteralsAllowed, maxRules, MODEL_API_HOSTS.stream().map(EgressRule::host).toList());
    }

    /** Limits that broker model keys by default. */
    public EgressLimits(boolean ipLiteralsAllowed, int maxRules, List<EgressRule> alwaysAllow) {
        this(ipLiteralsAllowed, maxRules, alwaysAllow, true);
    }

    /** These limits with the default brokering of model keys on or off. */
    public EgressLimits withBrokerModelKeys(boolean on) {
        return new EgressLimits(ipLiteralsAllowed, maxRules, alwaysAllow, on);
    }

    public static final int DEFAULT_MAX_RULES = 64;

    public EgressLimits {
        if (maxRules < 0) {
            throw new IllegalArgumentException("agentbox.egress.max-rules must not be negative");
        }
        alwaysAllow = List.copyOf(alwaysAllow);
    }

    public static EgressLimits defaults() {
        return new EgressLimits(false, DEFAULT_MAX_RULES);
    }

    public static EgressLimits fromConfig(Config c) {
        EgressLimits d = defaults();
        boolean ipLiterals =
                c.getOptionalValue("agentbox.egress.allow-ip-literals", Boolean.class)
                        .orElse(d.ipLiteralsAllowed());
        List<EgressRule> always = new ArrayList<>();
        for (String entry :
                c.getOptionalValue("agentbox.egress.always-allow", String.class)
                        .map(v -> List.of(v.split(",")))
                        .orElse(MODEL_API_HOSTS)) {
            if (!entry.isBlank()) {
                always.add(
                        EgressEntries.parse(
                                entry.strip(), "agentbox.egress.always-allow", ipLiterals));
            }
        }
        return new EgressLimits(
                ipLiterals,
                c.getOptionalValue("agentbox.egress.max-rules", Integer.class).orElse(d.maxRules()),
                always,
                c.getOptionalValue(BROKER_MODEL_KEYS, Boolean.class).orElse(true));
    }
}
