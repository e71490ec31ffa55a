package dev.agentbox.run.store;

import dev.agentbox.platform.PageCursor;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Run records. Each method is one transaction; callers pass {@code now}.
 *
 * <p>The field writes below touch ONLY their own column of the record row (one conditional UPDATE,
 * no read-modify-write), so concurrent writers of different fields never lose each other's value,
 * and they never touch the run's claim row: a cancel, detach or usage write can neither bump the
 * driver epoch nor fence out the live driver (TK-10). Status, finishedAt and error change only
 * through the fenced {@link EventLog#finishRun}.
 */
public interface RunStore {

    /**
     * Records a new {@code running} run together with its unclaimed claim row.
     *
     * @return the new record; empty when the tenant already has a run with this runId (the existing
     *     run is left untouched). A create racing a concurrent create of the same (tenant, runId)
     *     may instead fail at commit on the unique constraint; callers use {@link
     *     RunCreation#create} to see that as the same lost-race result.
     */
    Optional<RunRecordView> create(NewRun run);

    /** The tenant's run {@code runId}; empty when unknown or another tenant's. */
    Optional<RunRecordView> find(String tenant, String runId);

    Optional<RunRecordView> findById(RunRef run);

    /**
     * Sets ({@code Optional.of}) or clears ({@code empty}) the sandbox key. False when the run is
     * unknown.
     */
    boolean setSandboxKey(RunRef run, Optional<String> sandboxKey);

    /** Sets or clears {@code detachedSince}. False when the run is unknown. */
    boolean setDetachedSince(RunRef run, Optional<Instant> detachedSince);

    /**
     * Sets {@code cancelRequested} to true or false, or clears it (absent). False when the run is
     * unknown. (The service never clears a cancel request; the store can, so that the
     * absent/false/true states are all testable.)
     */
    boolean setCancelRequested(RunRef run, Optional<Boolean> cancelRequested);

    /** Sets or clears the usage object. False when the run is unknown. */
    boolean setUsage(RunRef run, Optional<JsonObject> usage);

    /**
     * The newest non-terminal ({@code running} or {@code interrupted}) run of the tenant's thread:
     * latest {@code startedAt}, ties broken by the larger runId.
     */
    Optional<RunRecordView> findActiveRun(String tenant, String threadId);

    /**
     * Runs of every tenant that are non-terminal and detached since at or before {@code now - ttl}
     * (inclusive: detached exactly {@code ttl} ago is reclaimable, one millisecond less is not),
     * longest detached first, at most {@code limit} (at least 1).
     */
    default List<RunRecordView> listReclaimable(Instant now, Duration ttl, int limit) {
        return listReclaimable(now, ttl, Optional.empty(), limit);
    }

    /**
     * Like {@link #listReclaimable(Instant, Duration, int)}, but only runs that come after {@code
     * after} in that order (longer detached first, then by run). The reaper walks the list this
     * way, so runs that stay detached and producing at its head cannot keep the runs behind them
     * from ever being looked at.
     */
    List<RunRecordView> listReclaimable(
            Instant now, Duration ttl, Optional<ReclaimCursor> after, int limit);

    /** A position in the reclaimable order: a run's {@code detachedSince} and its ref. */
    record ReclaimCursor(Instant detachedSince, RunRef run) {

        /** The position of {@code run}, which must be detached. */
        public static ReclaimCursor of(RunRecordView run) {
            return new ReclaimCursor(run.detachedSince().orElseThrow(), run.ref());
        }
    }

    /**
     * Runs of every tenant that are non-terminal and started at or before {@code startedBefore},
     * oldest first, at most {@code limit} (at least 1). The reaper looks among them for runs whose
     * driver is gone.
     */
    List<RunRecordView> listLive(Instant startedBefore, int limit);

    /**
     * The tenant's non-terminal runs bound to {@code sandboxKey}, at most {@code limit}. The reaper
     * keeps a sandbox that another live run still uses (a thread's next run reuses its sandbox
     * while the previous run waits to be finalized).
     */
    List<RunRecordView> liveRunsUsing(String tenant, String sandboxKey, int limit);

    /**
     * The tenant's runs, optionally only of one thread and/or one status, newest {@code startedAt}
     * first (ties: larger runId first), at most {@code limit} (at least 1).
     */
    default List<RunRecordView> list(
            String tenant, Optional<String> threadId, Optional<RunStatus> status, int limit) {
        return list(tenant, threadId, status, Optional.empty(), limit);
    }

    /**
     * As {@link #list(String, Optional, Optional, int)}, only the runs after {@code after} in that
     * order (older, or as old with a smaller runId): the next page of a list whose last run was
     * {@code after}.
     */
    List<RunRecordView> list(
            String tenant,
            Optional<String> threadId,
            Optional<RunStatus> status,
            Optional<PageCursor> after,
            int limit);
}
