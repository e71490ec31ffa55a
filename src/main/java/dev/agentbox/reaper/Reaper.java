package dev.agentbox.reaper;

import dev.agentbox.platform.LogText;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.reaper.SweepResult.RunEntry;
import dev.agentbox.run.RunAbort;
import dev.agentbox.run.RunContext;
import dev.agentbox.run.RunDriver;
import dev.agentbox.run.store.RunFailure;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One sweep: detached runs, then runs nobody drives, then orphaned sandboxes. Safe on many servers
 * at once: every write to a run goes through the run-write protocol ({@link
 * dev.agentbox.run.RunWriter}: its driver lease, then a claim), so a run another sweep (or a live
 * driver, or a re-attached viewer) holds is {@code not-claimed} here.
 *
 * <p>Detached runs (detached for the TTL or longer, inclusive — the TTL makes a run eligible, it
 * never kills it), longest detached first, at most {@code maxRuns} per sweep (each sweep goes on
 * after the last run of the previous one, from the head again at the end):
 *
 * <ul>
 *   <li>past its {@code maxDurationMs} → {@code cancelRequested} is written first, then the run is
 *       finalized if its agent had just exited, else aborted ({@code max-duration}); its sandbox is
 *       reclaimed → {@code expired};
 *   <li>otherwise the journal probe decides: finished → replay and finalize within the budget,
 *       reclaim → {@code finalized} (or {@code budget-exceeded}); producing or unknown → untouched:
 *       no append, no record write, no claim.
 * </ul>
 *
 * <p>Unattended runs — non-terminal, older than one lease TTL, whose driver lease nobody holds
 * (their server died, watched or not) — and not handled above: a cancelled one is aborted (sandbox
 * reclaimed), a runaway one is aborted {@code max-duration}, any other is handed to the {@link
 * Adopter}, which starts a successor on this server that keeps driving it.
 *
 * <p>Any rejected reclaim — the provider's destroy failed, or the reclaim threw (a store failure) —
 * turns a detached run's outcome into {@code reclaim-failed}, whatever it would have been, keeping
 * its status, exit code and {@code terminalizedAnyway}; an unattended run's action gets {@code ",
 * reclaim-failed"}. A run ended by the sweep stays ended: only its sandbox is in doubt. Any other
 * failure on one run is {@code failed} for it and the sweep goes on. The sweep never throws, never
 * clears {@code detachedSince} (only an attach does) and never clears {@code cancelRequested}.
 */
public final class Reaper {

    private static final Logger LOG = Logger.getLogger(Reaper.class.getName());

    private final RunContext ctx;
    private final RunExitProbe probe;
    private final Reclaimer reclaimer;
    private final OrphanCollector orphans;
    private final ReaperSettings settings;
    private final RunExpiry expiry;
    private final Executor executor;
    private Adopter adopter;

    /**
     * Starts a successor for a run no live driver holds; says what it did (for the sweep result).
     */
    @FunctionalInterface
    public interface Adopter {
        String adopt(RunRecordView run);
    }

    /** Most unattended runs looked at per sweep, oldest first. */
    static final int MAX_UNATTENDED = 2000;

    /**
     * Where the next sweep continues; sweeps of one reaper are not concurrent (the service keeps
     * them single-flight).
     */
    private volatile Optional<RunStore.ReclaimCursor> cursor = Optional.empty();

    /** A reaper that takes one run at a time. */
    public Reaper(
            RunContext ctx,
            RunExitProbe probe,
            Reclaimer reclaimer,
            OrphanCollector orphans,
            ReaperSettings settings) {
        this(ctx, probe, reclaimer, orphans, settings, null);
    }

    /**
     * A reaper that works on up to {@code settings.parallelism()} runs at once on {@code executor}.
     */
    public Reaper(
            RunContext ctx,
            RunExitProbe probe,
            Reclaimer reclaimer,
            OrphanCollector orphans,
            ReaperSettings settings,
            Executor executor) {
        this.executor = executor;
        this.ctx = ctx;
        this.probe = probe;
        this.reclaimer = reclaimer;
        this.orphans = orphans;
        this.settings = settings;
        this.expiry = new RunExpiry(ctx, reclaimer);
    }

    /** Sweeps also drive on runs whose driver is gone, through {@code adopter}. */
    public Reaper withAdopter(Adopter adopter) {
        this.adopter = adopter;
        return this;
    }

    public SweepResult sweep() {
        Instant now = ctx.clock().instant();
        long t0 = System.nanoTime();
        List<RunRecordView> candidates;
        try {
            candidates = list(now);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reaper: listing detached runs failed", e);
            return SweepResult.of(
                    now,
                    elapsedMs(t0),
                    0,
                    0,
                    List.of(),
                    unattended(now, Set.of()),
                    collectOrphans(),
                    Optional.of("listing detached runs failed: " + e));
        }
        Map<RunRef, RunExitProbe.Probe> probes = probe.probe(candidates);
        List<RunEntry> entries =
                Bounded.map(
                        candidates,
                        run -> {
                            RunExitProbe.Probe p =
                                    probes.getOrDefault(
                                            run.ref(), new RunExitProbe.Unknown("not probed"));
                            try {
                                return RunAbort.pastMaxDuration(run, now)
                                        ? expire(run, p)
                                        : reap(run, p);
                            } catch (RuntimeException | Error e) {
                                LOG.log(
                                        Level.WARNING,
                                        "reaper: run " + LogText.quote(run.runId()) + " failed",
                                        e);
                                return RunEntry.of(run.tenant(), run.runId(), SweepOutcome.FAILED)
                                        .withError(String.valueOf(e));
                            }
                        },
                        executor,
                        settings.parallelism());
        int probed = (int) candidates.stream().filter(r -> r.sandboxKey().isPresent()).count();
        // A detached run the probe saw producing (or could not tell) may have no live driver
        // either: it stays a candidate for adoption. The rest were dealt with above.
        Set<RunRef> handled = new HashSet<>();
        for (int i = 0; i < candidates.size(); i++) {
            SweepOutcome o = entries.get(i).outcome();
            if (o != SweepOutcome.PRODUCING && o != SweepOutcome.UNKNOWN) {
                handled.add(candidates.get(i).ref());
            }
        }
        List<SweepResult.Unattended> unattended = unattended(now, handled);
        SweepResult result =
                SweepResult.of(
                        now,
                        elapsedMs(t0),
                        candidates.size(),
                        probed,
                        entries,
                        unattended,
                        collectOrphans(),
                        Optional.empty());
        if (!entries.isEmpty()
                || !unattended.isEmpty()
                || !result.orphans().destroyed().isEmpty()) {
            LOG.info(
                    "reaper: swept "
                            + candidates.size()
                            + " detached run(s) in "
                            + result.durationMs()
                            + " ms: "
                            + summary(result));
        }
        return result;
    }

    /**
     * The next {@code maxRuns} detached runs after where the previous sweep stopped, from the head
     * again once the end was reached: producing runs at the head of the list cannot hide the runs
     * behind them, and every detached run is looked at within a few sweeps.
     */
    private List<RunRecordView> list(Instant now) {
        Optional<RunStore.ReclaimCursor> after = cursor;
        List<RunRecordView> page =
                ctx.runs().listReclaimable(now, settings.detachedTtl(), after, settings.maxRuns());
        if (page.isEmpty() && after.isPresent()) {
            page =
                    ctx.runs()
                            .listReclaimable(
                                    now,
                                    settings.detachedTtl(),
                                    Optional.empty(),
                                    settings.maxRuns());
        }
        cursor =
                page.size() < settings.maxRuns()
                        ? Optional.empty()
                        : Optional.of(RunStore.ReclaimCursor.of(page.get(page.size() - 1)));
        return page;
    }

    private RunEntry reap(RunRecordView run, RunExitProbe.Probe p) {
        if (p instanceof RunExitProbe.Finished) {
            return finalizeRun(run, SweepOutcome.FINALIZED);
        }
        if (p instanceof RunExitProbe.Producing) {
            return RunEntry.of(run.tenant(), run.runId(), SweepOutcome.PRODUCING);
        }
        return RunEntry.of(run.tenant(), run.runId(), SweepOutcome.UNKNOWN)
                .withError(((RunExitProbe.Unknown) p).reason());
    }

    /**
     * Runs no live driver holds, that the detached pass did not look at: abort the cancelled and
     * the runaway ones, hand the rest to the adopter. Never throws.
     */
    private List<SweepResult.Unattended> unattended(Instant now, Set<RunRef> handled) {
        if (adopter == null) {
            return List.of();
        }
        List<SweepResult.Unattended> out = new ArrayList<>();
        try {
            Set<String> held = ctx.leases().heldNames(LeaseNames.RUN_DRIVER_PREFIX);
            Instant youngest = now.minus(ctx.takeover().leaseTtl());
            for (RunRecordView run : ctx.runs().listLive(youngest, MAX_UNATTENDED)) {
                if (handled.contains(run.ref())
                        || held.contains(LeaseNames.runDriver(run.ref().id()))) {
                    continue;
                }
                try {
                    out.add(
                            new SweepResult.Unattended(
                                    run.tenant(), run.runId(), attend(run, now)));
                } catch (RuntimeException e) {
                    LOG.log(
                            Level.WARNING,
                            "reaper: unattended run " + LogText.quote(run.runId()) + " failed",
                            e);
                    out.add(
                            new SweepResult.Unattended(
                                    run.tenant(),
                                    run.runId(),
                                    "failed: " + e.getClass().getSimpleName()));
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reaper: listing unattended runs failed", e);
        }
        return out;
    }

    private String attend(RunRecordView run, Instant now) {
        boolean runaway = RunAbort.pastMaxDuration(run, now);
        if (runaway && !run.cancelRequested().orElse(false)) {
            ctx.runs().setCancelRequested(run.ref(), Optional.of(true));
        }
        if (runaway || run.cancelRequested().orElse(false)) {
            RunExpiry.Expired e =
                    expiry.expire(
                            run,
                            r -> true,
                            runaway ? RunAbort.maxDuration(run) : RunAbort.CANCELLED);
            String how = runaway ? "aborted (max-duration)" : "aborted (cancelled)";
            if (e.reclaimRejected()) {
                // Ended or not, the sandbox may still run: said on the line, as for a detached
                // run.
                how = (e.ended() ? how : "not-claimed") + ", reclaim-failed";
                LOG.warning(
                        "reaper: run "
                                + LogText.quote(run.runId())
                                + " had no live driver: "
                                + how
                                + ": "
                                + e.reclaimThrew()
                                        .map(String::valueOf)
                                        .or(() -> e.reclaim().flatMap(Reclaimer.Reclaim::error))
                                        .orElse(""));
                return how;
            }
            LOG.info(
                    "reaper: run "
                            + LogText.quote(run.runId())
                            + " had no live driver: "
                            + (e.ended() ? how : "not claimed"));
            return e.ended() ? how : "not-claimed";
        }
        return adopter.adopt(run);
    }

    /**
     * Cancel first (reaches a live driver anywhere), then finish what had just exited, abort the
     * rest.
     */
    private RunEntry expire(RunRecordView run, RunExitProbe.Probe p) {
        if (!run.cancelRequested().orElse(false)) {
            ctx.runs().setCancelRequested(run.ref(), Optional.of(true));
        }
        if (p instanceof RunExitProbe.Finished) {
            return finalizeRun(run, SweepOutcome.EXPIRED);
        }
        RunExpiry.Expired e =
                expiry.expire(run, r -> r.detachedSince().isPresent(), RunAbort.maxDuration(run));
        RunEntry entry =
                e.ended()
                        ? new RunEntry(
                                run.tenant(),
                                run.runId(),
                                SweepOutcome.EXPIRED,
                                Optional.of(RunFailure.ABORTED.code()),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty())
                        : RunEntry.of(run.tenant(), run.runId(), SweepOutcome.NOT_CLAIMED);
        if (e.reclaimThrew().isPresent()) {
            return reclaimThrew(entry, e.reclaimThrew().get());
        }
        return withReclaim(entry, e.reclaim());
    }

    private RunEntry finalizeRun(RunRecordView run, SweepOutcome success) {
        RunDriver.Result r = RunDriver.finalizer(ctx, run, settings.runBudget()).execute();
        switch (r.ending()) {
            case FINISHED, BUDGET_EXCEEDED -> {
                SweepOutcome outcome =
                        r.ending() == RunDriver.Ending.BUDGET_EXCEEDED
                                ? SweepOutcome.BUDGET_EXCEEDED
                                : success;
                RunEntry entry =
                        new RunEntry(
                                run.tenant(),
                                run.runId(),
                                outcome,
                                r.status().map(s -> s.wireName()),
                                r.exitCode(),
                                Optional.empty(),
                                Optional.empty(),
                                r.ending() == RunDriver.Ending.BUDGET_EXCEEDED);
                try {
                    return withReclaim(entry, Optional.of(reclaimer.reclaim(run)));
                } catch (RuntimeException e) {
                    return reclaimThrew(entry, e);
                }
            }
            default -> {
                return RunEntry.of(run.tenant(), run.runId(), SweepOutcome.NOT_CLAIMED);
            }
        }
    }

    /**
     * A reclaim that threw (a store failure before or after the destroy) is a rejection like a
     * failed destroy: {@code reclaim-failed}, the line keeping the status, exit code and budget
     * anomaly already known. The run is terminal (or was not ours to end); its sandbox may still
     * run, and no later sweep lists a terminal run to retry it.
     */
    private static RunEntry reclaimThrew(RunEntry entry, RuntimeException e) {
        LOG.log(
                Level.WARNING,
                "reaper: run " + LogText.quote(entry.runId()) + ": reclaiming its sandbox failed",
                e);
        return entry.reclaimFailed(String.valueOf(e));
    }

    /**
     * A destroy that threw overrides the outcome with {@code reclaim-failed}: the record is
     * terminal but the sandbox may still run.
     */
    private static RunEntry withReclaim(RunEntry entry, Optional<Reclaimer.Reclaim> reclaim) {
        if (reclaim.isEmpty()) {
            return entry;
        }
        Reclaimer.Reclaim rc = reclaim.get();
        SweepOutcome outcome =
                rc.outcome() == ReclaimOutcome.DESTROY_FAILED
                        ? SweepOutcome.RECLAIM_FAILED
                        : entry.outcome();
        return new RunEntry(
                entry.tenant(),
                entry.runId(),
                outcome,
                entry.status(),
                entry.exitCode(),
                rc.error().or(entry::error),
                Optional.of(rc.outcome()),
                entry.terminalizedAnyway());
    }

    private OrphanCollector.Report collectOrphans() {
        try {
            return orphans.collect();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reaper: orphan collection failed", e);
            return OrphanCollector.Report.empty();
        }
    }

    private static String summary(SweepResult r) {
        StringBuilder sb = new StringBuilder();
        r.outcomes()
                .forEach(
                        (o, n) -> {
                            if (n > 0) {
                                sb.append(sb.length() == 0 ? "" : ", ")
                                        .append(o.wireName())
                                        .append('=')
                                        .append(n);
                            }
                        });
        if (!r.orphans().destroyed().isEmpty()) {
            sb.append(sb.length() == 0 ? "" : ", ")
                    .append("orphans destroyed=")
                    .append(r.orphans().destroyed().size());
        }
        return sb.length() == 0 ? "nothing to do" : sb.toString();
    }

    private static long elapsedMs(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
