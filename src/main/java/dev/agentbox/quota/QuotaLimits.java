package dev.agentbox.quota;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.eclipse.microprofile.config.Config;

/**
 * The configured number for each {@link Quota}, per tenant: the tenant's override ({@code
 * agentbox.quotas.tenant.<tenant>.max-<name>}) if set, else the default ({@code
 * agentbox.quotas.max-<name>}). {@code 0} means no limit; a negative number is a configuration
 * error, reported when the limits are built or first read for a tenant.
 */
final class QuotaLimits {

    static final String PREFIX = "agentbox.quotas.";

    private final Map<Quota, Integer> defaults;
    private final BiFunction<String, Quota, Optional<Integer>> overrides;

    /** Tenants come from the configured tokens, so this stays small. */
    private final Map<String, Map<Quota, Integer>> resolved = new ConcurrentHashMap<>();

    private QuotaLimits(
            Map<Quota, Integer> defaults, BiFunction<String, Quota, Optional<Integer>> overrides) {
        this.defaults = new EnumMap<>(Quota.class);
        this.defaults.putAll(defaults);
        for (Quota q : Quota.values()) {
            check(q, this.defaults.getOrDefault(q, 0), PREFIX + q.configName());
        }
        this.overrides = overrides;
    }

    /** No limit on anything (servers built outside the container, tests of other features). */
    public static QuotaLimits unlimited() {
        return new QuotaLimits(Map.of(), (t, q) -> Optional.empty());
    }

    /** Fixed limits for every tenant; quotas not in the map are unlimited. */
    public static QuotaLimits of(Map<Quota, Integer> defaults) {
        return new QuotaLimits(defaults, (t, q) -> Optional.empty());
    }

    /** Fixed defaults plus per-tenant overrides ({@code tenant → quota → limit}). */
    public static QuotaLimits of(
            Map<Quota, Integer> defaults, Map<String, Map<Quota, Integer>> perTenant) {
        return new QuotaLimits(
                defaults,
                (t, q) -> Optional.ofNullable(perTenant.getOrDefault(t, Map.of()).get(q)));
    }

    /**
     * The limits of MicroProfile Config; per-tenant keys are looked up when a tenant first asks.
     */
    public static QuotaLimits fromConfig(Config config) {
        Map<Quota, Integer> defaults = new EnumMap<>(Quota.class);
        for (Quota q : Quota.values()) {
            defaults.put(
                    q, config.getOptionalValue(PREFIX + q.configName(), Integer.class).orElse(0));
        }
        return new QuotaLimits(
                defaults,
                (tenant, q) ->
                        config.getOptionalValue(
                                PREFIX + "tenant." + tenant + "." + q.configName(), Integer.class));
    }

    /** The tenant's limit for {@code quota}; {@code 0} = no limit. */
    public int limit(String tenant, Quota quota) {
        return resolved.computeIfAbsent(tenant, this::resolve).get(quota);
    }

    private Map<Quota, Integer> resolve(String tenant) {
        Map<Quota, Integer> m = new EnumMap<>(Quota.class);
        for (Quota q : Quota.values()) {
            int v = overrides.apply(tenant, q).orElse(defaults.getOrDefault(q, 0));
            check(q, v, PREFIX + "tenant." + tenant + "." + q.configName());
            m.put(q, v);
        }
        return m;
    }

    private static void check(Quota q, int value, String key) {
        if (value < 0) {
            throw new IllegalArgumentException(
                    key + " must be 0 (no limit) or positive, was " + value);
        }
    }
}
