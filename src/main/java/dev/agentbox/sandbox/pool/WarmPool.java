package dev.agentbox.sandbox.pool;

import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.sandbox.store.PooledSandbox;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The hand-out of sandboxes made ahead of demand, shared by every server of an installation through
 * the {@link PoolStore}; their making and retiring is {@link PoolUpkeep}'s.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li><b>One hand-out per sandbox</b>: {@link #claim} takes a row only through {@link
 *       PoolStore#claim}, a compare-and-set on READY; whoever loses tries the next row.
 *   <li><b>No leak</b>: a row is written only after its sandbox exists (a crash in between leaves
 *       an unrecorded sandbox, which the orphan collector destroys); a claim that fails half-way
 *       destroys its sandbox ({@link #abandon}); a claim whose server died is destroyed by {@link
 *       PoolUpkeep#tidy} once {@link PoolSettings#claimGrace()} has passed, its sandbox is not
 *       recorded and no ensure holds its key; ready sandboxes older than {@link
 *       PoolSettings#maxAge()} are retired.
 *   <li><b>No tenant before the claim</b>: a pooled sandbox is made without key, tenant, env or
 *       secrets; what an ensure adds afterwards (env, secrets, workspace) goes where it would on
 *       any sandbox: the record and the sandbox's tmpfs secrets file.
 *   <li><b>Never in the way</b>: every failure here is logged and counted; an ensure then makes its
 *       sandbox as it would without a pool.
 * </ul>
 */
public final class WarmPool {

    private static final Logger LOG = Logger.getLogger(WarmPool.class.getName());

    /**
     * How many ready rows one claim's compare-and-set looks at, and how many gone sandboxes it
     * skips, before it counts a miss.
     */
    private static final int CANDIDATES = 4;

    /** A claimed sandbox: its row (now CLAIMED) and a live handle to it. */
    public record Claim(PooledSandbox row, SandboxHandle handle) {}

    private final Function<String, Optional<SandboxProvider>> providers;
    private final PoolStore store;
    private final Clock clock;
    private final PoolSettings settings;
    private final PoolMetrics metrics;

    public WarmPool(
            Function<String, Optional<SandboxProvider>> providers,
            PoolStore store,
            Clock clock,
            PoolSettings settings,
            PoolMetrics metrics) {
        this.providers = providers;
        this.store = store;
        this.clock = clock;
        this.settings = settings;
        this.metrics = metrics;
    }

    public PoolSettings settings() {
        return settings;
    }

    /**
     * The entry that serves an ensure of {@code image} (none: the provider's default) with {@code
     * policy}, if any.
     */
    public Optional<PoolEntry> entryFor(
            String provider, Optional<String> image, SandboxPolicy policy) {
        if (!settings.enabled()) {
            return Optional.empty();
        }
        return PoolEntry.find(
                settings.entries(), provider, image.orElse(settings.defaultImage()), policy);
    }

    /**
     * Hands one ready sandbox of {@code entry} to the ensure of {@code sandboxKey}: empty on a miss
     * (none ready, or every candidate lost to another claim or gone). The returned row is CLAIMED;
     * the caller ends the claim with {@link #claimed} once the sandbox is recorded, or {@link
     * #abandon} when it cannot be.
     */
    public Optional<Claim> claim(PoolEntry entry, String sandboxKey) {
        long t0 = System.nanoTime();
        Optional<SandboxProvider> provider = providers.apply(entry.provider());
        if (provider.isEmpty()) {
            return Optional.empty();
        }
        try {
            Instant now = clock.instant();
            for (int tries = 0; tries < CANDIDATES; tries++) {
                Optional<PooledSandbox> row =
                        store.claimOldest(
                                entry.key(),
                                now.minus(settings.maxAge()),
                                sandboxKey,
                                now,
                                CANDIDATES);
                if (row.isEmpty()) {
                    break; // none ready, or every candidate went to other claims
                }
                Optional<SandboxHandle> live = resume(provider.get(), row.get());
                if (live.isPresent()) {
                    metrics.hit(entry, Duration.ofNanos(System.nanoTime() - t0));
                    return Optional.of(new Claim(row.get(), live.get()));
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool " + entry + ": claim failed; making a new sandbox", e);
        }
        metrics.miss(entry);
        return Optional.empty();
    }

    /** A claimed sandbox's handle; empty (and the row and sandbox gone) when it did not survive. */
    private Optional<SandboxHandle> resume(SandboxProvider provider, PooledSandbox row) {
        try {
            Optional<SandboxHandle> h = provider.resume(row.providerSandboxId());
            if (h.isPresent()) {
                return h;
            }
            LOG.info("pool: " + row.providerSandboxId() + " is gone; forgetting it");
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "pool: resuming " + row.providerSandboxId() + " failed", e);
        }
        destroy(provider, row.providerSandboxId());
        return Optional.empty();
    }

    /** Ends a claim whose sandbox is now recorded: the row goes, the sandbox stays. */
    public void claimed(Claim claim) {
        try {
            store.remove(claim.row().providerSandboxId());
        } catch (RuntimeException e) {
            // The row stays CLAIMED; tidy() finds the sandbox recorded and drops the row.
            LOG.log(Level.WARNING, "pool: dropping the row of a claimed sandbox failed", e);
        }
    }

    /** Ends a claim that could not be completed: the sandbox is destroyed and the row dropped. */
    public void abandon(Claim claim) {
        providers
                .apply(claim.row().provider())
                .ifPresent(p -> destroy(p, claim.row().providerSandboxId()));
    }

    private void destroy(SandboxProvider provider, String id) {
        PoolUpkeep.destroy(store, provider, id);
    }
}
