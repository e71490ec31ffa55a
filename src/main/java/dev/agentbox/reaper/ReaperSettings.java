package dev.agentbox.reaper;

import java.time.Duration;

/**
 * The reaper's knobs ({@code agentbox.reaper.*}).
 *
 * @param maxRuns detached runs considered per sweep, longest detached first
 * @param runBudget how long finalizing one run may take before it is terminalized anyway
 * @param detachedTtl a run detached this long (inclusive) is cancelled
 * @param orphanGrace a labelled sandbox without a record is destroyed only once it is this old (an
 *     ensure records its sandbox only after bootstrap)
 * @param parallelism sandboxes probed, and runs finalized, at the same time
 */
public record ReaperSettings(
        int maxRuns,
        Duration runBudget,
        Duration detachedTtl,
        Duration orphanGrace,
        int parallelism) {

    public static final int DEFAULT_MAX_RUNS = 25;
    public static final int DEFAULT_PARALLELISM = 4;

    public ReaperSettings(
            int maxRuns, Duration runBudget, Duration detachedTtl, Duration orphanGrace) {
        this(maxRuns, runBudget, detachedTtl, orphanGrace, DEFAULT_PARALLELISM);
    }

    public ReaperSettings {
        if (maxRuns < 1) {
            throw new IllegalArgumentException(
                    "agentbox.reaper.max-runs must be at least 1: " + maxRuns);
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException(
                    "agentbox.reaper.parallelism must be at least 1: " + parallelism);
        }
        if (runBudget.isNegative() || detachedTtl.isNegative() || orphanGrace.isNegative()) {
            throw new IllegalArgumentException("reaper durations must not be negative");
        }
    }

    /** The defaults: 25 runs, 30 s budget, 30 min detached TTL, 10 min orphan grace. */
    public static ReaperSettings defaults() {
        return new ReaperSettings(
                DEFAULT_MAX_RUNS,
                Duration.ofSeconds(30),
                Duration.ofMinutes(30),
                Duration.ofMinutes(10));
    }
}
