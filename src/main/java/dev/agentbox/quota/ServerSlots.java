package dev.agentbox.quota;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the {@link Quota.Scope#SERVER} quotas held on this server, per tenant and quota.
 *
 * <p>The race it guards against: two requests of one tenant both see one free slot and both take
 * it. The check and the increment are one {@code compute} on the tenant's counter, which the map
 * runs atomically per key, so the last slot goes to exactly one of them; other tenants' counters
 * are other keys and never wait on this one.
 */
final class ServerSlots {

    private record Key(String tenant, Quota quota) {}

    private final Map<Key, Integer> held = new ConcurrentHashMap<>();

    /**
     * Takes one slot or throws {@link QuotaExceededException}; {@code limit} 0 = no limit (nothing
     * counted).
     */
    Slot take(String tenant, Quota quota, int limit) {
        if (limit == 0) {
            return Slot.NONE;
        }
        Key key = new Key(tenant, quota);
        boolean[] taken = new boolean[1];
        held.compute(
                key,
                (k, n) -> {
                    int now = n == null ? 0 : n;
                    taken[0] = now < limit;
                    return taken[0] ? now + 1 : n;
                });
        if (!taken[0]) {
            throw new QuotaExceededException(quota, limit);
        }
        return new Slot(() -> held.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1));
    }

    /** How many slots of {@code quota} the tenant holds on this server now. */
    int held(String tenant, Quota quota) {
        return held.getOrDefault(new Key(tenant, quota), 0);
    }
}
