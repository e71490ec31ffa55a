package dev.agentbox.sandbox.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.Config;

/**
 * The warm pool's configuration ({@code agentbox.pool.*}, defaults in {@code
 * microprofile-config.properties}).
 *
 * @param size ready sandboxes kept per entry across the installation; 0 switches the pool off
 * @param entries which image and policy combinations are pooled (Docker provider)
 * @param maxAge a ready sandbox older than this is never handed out; it is replaced
 * @param refillEvery how often a server checks the pool (it also refills after each claim)
 * @param refillAfterClaim how long after a claim its server refills: long enough for the new
 *     sandbox's first commands to run before the refill's container creation competes with them for
 *     the CPUs; 0 refills at once
 * @param claimGrace how long a claim may stay unfinished before its sandbox is presumed abandoned
 *     (its server died mid-ensure) and destroyed, unless its key's ensure still holds the lease
 * @param defaultImage the Docker provider's default image ({@code agentbox.docker.image}): an
 *     ensure without an image asks for it
 */
public record PoolSettings(
        int size,
        List<PoolEntry> entries,
        Duration maxAge,
        Duration refillEvery,
        Duration refillAfterClaim,
        Duration claimGrace,
        String defaultImage) {

    public static final String SIZE = "agentbox.pool.size";
    public static final String ENTRIES = "agentbox.pool.entries";
    public static final String MAX_AGE = "agentbox.pool.max-age-ms";
    public static final String REFILL = "agentbox.pool.refill-interval-ms";
    public static final String REFILL_AFTER_CLAIM = "agentbox.pool.refill-after-claim-ms";
    public static final String CLAIM_GRACE = "agentbox.pool.claim-grace-ms";

    public PoolSettings {
        if (size < 0) {
            throw new IllegalArgumentException(SIZE + " must be 0 or more, was " + size);
        }
        entries = List.copyOf(entries);
    }

    public boolean enabled() {
        return size > 0 && !entries.isEmpty();
    }

    public static PoolSettings off() {
        return new PoolSettings(
                0,
                List.of(),
                Duration.ofMinutes(30),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                Duration.ofMinutes(1),
                "");
    }

    /**
     * Reads {@code agentbox.pool.*}. Without {@code agentbox.pool.entries} the pool holds the
     * Docker provider's default image ({@code agentbox.docker.image}) with the default policy; with
     * the Docker provider switched off there is no pool.
     */
    public static PoolSettings fromConfig(Config c) {
        int size = c.getOptionalValue(SIZE, Integer.class).orElse(2);
        boolean docker =
                c.getOptionalValue("agentbox.providers.docker.enabled", Boolean.class).orElse(true);
        String defaultImage = c.getOptionalValue("agentbox.docker.image", String.class).orElse("");
        List<PoolEntry> entries = new ArrayList<>();
        if (docker) {
            String spec = c.getOptionalValue(ENTRIES, String.class).orElse(defaultImage);
            for (String e : spec.split(",")) {
                if (!e.isBlank()) {
                    entries.add(PoolEntry.parse("docker", e));
                }
            }
        }
        return new PoolSettings(
                size,
                entries,
                Duration.ofMillis(positive(c, MAX_AGE, 1_800_000)),
                Duration.ofMillis(positive(c, REFILL, 5_000)),
                Duration.ofMillis(notNegative(c, REFILL_AFTER_CLAIM, 1_000)),
                Duration.ofMillis(positive(c, CLAIM_GRACE, 60_000)),
                defaultImage);
    }

    private static long notNegative(Config c, String key, long fallback) {
        long v = c.getOptionalValue(key, Long.class).orElse(fallback);
        if (v < 0) {
            throw new IllegalArgumentException(key + " must be 0 or more, was " + v);
        }
        return v;
    }

    private static long positive(Config c, String key, long fallback) {
        long v = c.getOptionalValue(key, Long.class).orElse(fallback);
        if (v <= 0) {
            throw new IllegalArgumentException(key + " must be positive, was " + v);
        }
        return v;
    }
}
