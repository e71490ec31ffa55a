package dev.agentbox.sandbox.pool;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * The pool's metrics, each tagged with {@code pool} ({@link PoolEntry#key()}): {@code
 * agentbox.pool.ready} (gauge: ready sandboxes as this server last counted or made them), {@code
 * agentbox.pool.hits} and {@code agentbox.pool.misses} (ensures that could take from the pool and
 * did or did not), {@code agentbox.pool.claim} (timer: from the claim's start to a live handle) and
 * {@code agentbox.pool.made} (timer: making one pooled sandbox).
 */
public final class PoolMetrics {

    private final MetricRegistry registry;
    private final Map<String, AtomicLong> ready = new ConcurrentHashMap<>();

    /** {@code registry} null: nothing is published (tests outside the server). */
    public PoolMetrics(MetricRegistry registry) {
        this.registry = registry;
    }

    void hit(PoolEntry entry, Duration claim) {
        if (registry != null) {
            registry.counter("agentbox.pool.hits", tag(entry)).inc();
            registry.timer("agentbox.pool.claim", tag(entry)).update(claim);
        }
        gauge(entry).updateAndGet(n -> Math.max(0, n - 1));
    }

    void miss(PoolEntry entry) {
        if (registry != null) {
            registry.counter("agentbox.pool.misses", tag(entry)).inc();
        }
    }

    void made(PoolEntry entry, Duration took) {
        if (registry != null) {
            registry.timer("agentbox.pool.made", tag(entry)).update(took);
        }
    }

    void ready(PoolEntry entry, long n) {
        gauge(entry).set(n);
    }

    private AtomicLong gauge(PoolEntry entry) {
        return ready.computeIfAbsent(
                entry.key(),
                k -> {
                    AtomicLong v = new AtomicLong();
                    if (registry != null) {
                        registry.gauge("agentbox.pool.ready", v, AtomicLong::get, tag(entry));
                    }
                    return v;
                });
    }

    private static Tag tag(PoolEntry entry) {
        return new Tag("pool", entry.key());
    }
}
