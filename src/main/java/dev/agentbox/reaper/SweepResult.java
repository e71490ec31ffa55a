package dev.agentbox.reaper;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one sweep did. {@link #outcomes()} always holds all eight outcome keys.
 *
 * @param considered detached runs listed for this sweep (0 when the listing failed)
 * @param probed runs whose journal was probed
 * @param error why the sweep could not list runs, if it could not
 */
public record SweepResult(
        Instant startedAt,
        long durationMs,
        int considered,
        int probed,
        Map<SweepOutcome, Integer> outcomes,
        List<RunEntry> runs,
        List<Unattended> unattended,
        OrphanCollector.Report orphans,
        Optional<String> error) {

    /**
     * A run no live driver held, and what this sweep did with it: {@code started} (a successor
     * drives it here now), {@code driven}, {@code at-capacity} (left to another server), {@code
     * not-eligible}, {@code aborted (cancelled)}, {@code aborted (max-duration)}, {@code
     * not-claimed} or {@code failed: …}; an abort whose reclaim was rejected adds {@code ",
     * reclaim-failed"}.
     */
    public record Unattended(String tenant, String runId, String action) {}

    /**
     * One run's line: its outcome, and where known the status, the agent's exit code, an error, the
     * reclaim.
     *
     * @param terminalizedAnyway true if and only if this sweep ended the run although its replay
     *     outran the run budget. A rejected reclaim overrides the outcome with {@code
     *     reclaim-failed}; this flag is what keeps the budget anomaly on the line.
     */
    public record RunEntry(
            String tenant,
            String runId,
            SweepOutcome outcome,
            Optional<String> status,
            Optional<Integer> exitCode,
            Optional<String> error,
            Optional<ReclaimOutcome> reclaim,
            boolean terminalizedAnyway) {

        public RunEntry(
                String tenant,
                String runId,
                SweepOutcome outcome,
                Optional<String> status,
                Optional<Integer> exitCode,
                Optional<String> error,
                Optional<ReclaimOutcome> reclaim) {
            this(tenant, runId, outcome, status, exitCode, error, reclaim, false);
        }

        static RunEntry of(String tenant, String runId, SweepOutcome outcome) {
            return new RunEntry(
                    tenant,
                    runId,
                    outcome,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty());
        }

        RunEntry withError(String message) {
            return new RunEntry(
                    tenant,
                    runId,
                    outcome,
                    status,
                    exitCode,
                    Optional.of(message),
                    reclaim,
                    terminalizedAnyway);
        }

        /**
         * This line as {@code reclaim-failed} with {@code message}, keeping what is known of the
         * run.
         */
        RunEntry reclaimFailed(String message) {
            return new RunEntry(
                    tenant,
                    runId,
                    SweepOutcome.RECLAIM_FAILED,
                    status,
                    exitCode,
                    Optional.of(message),
                    reclaim,
                    terminalizedAnyway);
        }
    }

    public SweepResult {
        runs = List.copyOf(runs);
        unattended = List.copyOf(unattended);
        outcomes = Collections.unmodifiableMap(new EnumMap<>(outcomes));
    }

    static SweepResult of(
            Instant startedAt,
            long durationMs,
            int considered,
            int probed,
            List<RunEntry> runs,
            List<Unattended> unattended,
            OrphanCollector.Report orphans,
            Optional<String> error) {
        Map<SweepOutcome, Integer> counts = new EnumMap<>(SweepOutcome.class);
        for (SweepOutcome o : SweepOutcome.values()) {
            counts.put(o, 0);
        }
        runs.forEach(r -> counts.merge(r.outcome(), 1, Integer::sum));
        return new SweepResult(
                startedAt,
                durationMs,
                considered,
                probed,
                counts,
                runs,
                unattended,
                orphans,
                error);
    }

    public int count(SweepOutcome outcome) {
        return outcomes.get(outcome);
    }
}
