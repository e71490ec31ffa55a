package dev.agentbox.run;

import dev.agentbox.platform.NodeIdentity;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.ViewerStore;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Viewers of runs, counted across the cluster. This server counts its own viewers per run in memory
 * and mirrors "has at least one" into one {@link ViewerStore} row per run, renewed about once per
 * stream heartbeat; a dead server's rows stop counting after {@code agentbox.runs.viewer-ttl-ms}.
 * Not the decision to detach: {@link RunService} asks {@link #watchedAnywhere} after the last
 * viewer here left.
 *
 * <p>The in-memory count and its row change together under one lock, so an attach racing the last
 * leave on this server can never end with a viewer here and no row.
 */
@ApplicationScoped
public class RunViewers {

    private static final Logger LOG = Logger.getLogger(RunViewers.class.getName());

    @Inject ViewerStore store;

    @Inject NodeIdentity node;

    @Inject Clock clock;

    @Inject
    @ConfigProperty(name = "agentbox.runs.viewer-ttl-ms")
    long ttlMs;

    @Resource ManagedScheduledExecutorService scheduler;

    /** Viewers on this server per run; guarded by itself. */
    private final Map<RunRef, Integer> here = new HashMap<>();

    private ScheduledFuture<?> renewal;

    @PostConstruct
    void start() {
        // A row lives for a few renewals, so one missed renewal never drops a watched run.
        long every = Math.max(100, Math.min(1000, ttlMs / 4));
        renewal =
                scheduler.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        if (renewal != null) {
            renewal.cancel(false);
        }
    }

    private void renew() {
        try {
            synchronized (here) {
                store.renew(node.id(), Set.copyOf(here.keySet()), clock.instant(), ttl());
            }
        } catch (RuntimeException e) {
            LOG.warning("could not renew this server's viewer rows: " + e);
        }
    }

    /** A viewer of {@code run} attached on this server (its first one writes the row). */
    public void attached(RunRef run) {
        synchronized (here) {
            if (here.merge(run, 1, Integer::sum) == 1) {
                try {
                    store.present(run, node.id(), clock.instant(), ttl());
                } catch (RuntimeException e) {
                    here.remove(run);
                    throw e;
                }
            }
        }
    }

    /**
     * A viewer of {@code run} on this server left.
     *
     * @return true when it was the last one here (its row is gone)
     */
    public boolean left(RunRef run) {
        synchronized (here) {
            if (here.computeIfPresent(run, (k, n) -> n > 1 ? n - 1 : null) != null) {
                return false;
            }
            store.absent(run, node.id());
            return true;
        }
    }

    /** Whether any server (this one included) has an unexpired viewer row for {@code run}. */
    public boolean watchedAnywhere(RunRef run) {
        return store.watched(run, clock.instant());
    }

    private Duration ttl() {
        return Duration.ofMillis(ttlMs);
    }
}
