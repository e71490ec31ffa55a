package dev.agentbox.run.store;

import dev.agentbox.platform.PageCursor;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Run records, claims and event logs in memory, for fast tests of driver logic. One object
 * implements all three stores because they share state exactly as the tables do (a claim reads the
 * record's status, finishRun writes the record under the claim's fence). Passes the same contracts
 * as the JPA stores.
 *
 * <p>Every method holds this object's monitor for its whole duration, which stands in for both the
 * transaction and the claim row lock: a claim cannot interleave with a fenced write, just as on the
 * database.
 */
public class InMemoryRuns implements RunStore, ClaimStore, EventLog {

    private static final Comparator<Row> NEWEST_FIRST =
            Comparator.comparing((Row r) -> r.startedAt).thenComparing(r -> r.runId).reversed();

    private final Map<String, Row> rows = new HashMap<>();
    private final Map<String, List<LoggedChunkWithFingerprint>> logs = new HashMap<>();
    private final Runnable afterFenceCheck;

    public InMemoryRuns() {
        this(() -> {});
    }

    /** For fence tests: {@code afterFenceCheck} runs between a passed epoch check and the write. */
    InMemoryRuns(Runnable afterFenceCheck) {
        this.afterFenceCheck = afterFenceCheck;
    }

    /** The mutable state of one run; {@link #view()} snapshots it. */
    private static final class Row {
        final RunRef ref;
        final NewRun created;
        final String runId;
        final Instant startedAt;
        RunStatus status = RunStatus.RUNNING;
        Instant finishedAt;
        RunError error;
        JsonObject usage;
        String sandboxKey;
        Instant detachedSince;
        Boolean cancelRequested;
        long epoch = DriverClaim.UNCLAIMED;
        long version = 1;

        Row(RunRef ref, NewRun created) {
            this.ref = ref;
            this.created = created;
            this.runId = created.runId();
            this.startedAt = created.startedAt();
            this.sandboxKey = created.sandboxKey().orElse(null);
        }

        RunRecordView view() {
            return new RunRecordView(
                    ref,
                    created.tenant(),
                    runId,
                    created.threadId(),
                    created.harness(),
                    status,
                    startedAt,
                    Optional.ofNullable(finishedAt),
                    Optional.ofNullable(error),
                    Optional.ofNullable(usage),
                    Optional.ofNullable(sandboxKey),
                    Optional.ofNullable(detachedSince),
                    Optional.ofNullable(cancelRequested),
                    created.durable(),
                    created.detachOnDisconnect(),
                    created.destroyOnComplete(),
                    created.command(),
                    created.prompt(),
                    DriverClaim.epochOf(epoch),
                    version,
                    created.journalNonce(),
                    created.maxDurationMs(),
                    created.fileEvents(),
                    created.approvals(),
                    created.bridge());
        }
    }

    private record LoggedChunkWithFingerprint(LoggedChunk chunk, StoredChunk stored) {}

    // --- RunStore ---

    @Override
    public synchronized Optional<RunRecordView> create(NewRun run) {
        if (rowOf(run.tenant(), run.runId()).isPresent()) {
            return Optional.empty();
        }
        Row row = new Row(new RunRef(UUID.randomUUID().toString()), run);
        rows.put(row.ref.id(), row);
        logs.put(row.ref.id(), new ArrayList<>());
        return Optional.of(row.view());
    }

    @Override
    public synchronized Optional<RunRecordView> find(String tenant, String runId) {
        return rowOf(tenant, runId).map(Row::view);
    }

    @Override
    public synchronized Optional<RunRecordView> findById(RunRef run) {
        return Optional.ofNullable(rows.get(run.id())).map(Row::view);
    }

    @Override
    public synchronized boolean setSandboxKey(RunRef run, Optional<String> sandboxKey) {
        sandboxKey.ifPresent(k -> NewRun.requireLength("sandboxKey", k, NewRun.MAX_SANDBOX_KEY));
        return write(run, row -> row.sandboxKey = sandboxKey.orElse(null));
    }

    @Override
    public synchronized boolean setDetachedSince(RunRef run, Optional<Instant> detachedSince) {
        return write(run, row -> row.detachedSince = detachedSince.orElse(null));
    }

    @Override
    public synchronized boolean setCancelRequested(RunRef run, Optional<Boolean> cancelRequested) {
        return write(run, row -> row.cancelRequested = cancelRequested.orElse(null));
    }

    @Override
    public synchronized boolean setUsage(RunRef run, Optional<JsonObject> usage) {
        usage.ifPresent(RunRecord::usageText); // same size limit as the column
        return write(run, row -> row.usage = usage.orElse(null));
    }

    private boolean write(RunRef run, Consumer<Row> change) {
        Row row = rows.get(run.id());
        if (row == null) {
            return false;
        }
        change.accept(row);
        row.version++;
        return true;
    }

    @Override
    public synchronized Optional<RunRecordView> findActiveRun(String tenant, String threadId) {
        return tenantRows(tenant)
                .filter(r -> r.created.threadId().equals(threadId) && !r.status.isTerminal())
                .sorted(NEWEST_FIRST)
                .findFirst()
                .map(Row::view);
    }

    @Override
    public synchronized List<RunRecordView> listReclaimable(
            Instant now, Duration ttl, Optional<ReclaimCursor> after, int limit) {
        Instant cutoff = now.minus(ttl);
        return rows.values().stream()
                .filter(
                        r ->
                                !r.status.isTerminal()
                                        && r.detachedSince != null
                                        && !r.detachedSince.isAfter(cutoff))
                .filter(
                        r ->
                                after.map(
                                                c ->
                                                        r.detachedSince.isAfter(c.detachedSince())
                                                                || (r.detachedSince.equals(
                                                                                c.detachedSince())
                                                                        && r.ref.id()
                                                                                        .compareTo(
                                                                                                c.run()
                                                                                                        .id())
                                                                                > 0))
                                        .orElse(true))
                .sorted(
                        Comparator.comparing((Row r) -> r.detachedSince)
                                .thenComparing(r -> r.ref.id()))
                .limit(Limits.require(limit))
                .map(Row::view)
                .toList();
    }

    @Override
    public synchronized List<RunRecordView> listLive(Instant startedBefore, int limit) {
        return rows.values().stream()
                .filter(r -> !r.status.isTerminal() && !r.startedAt.isAfter(startedBefore))
                .sorted(Comparator.comparing((Row r) -> r.startedAt).thenComparing(r -> r.ref.id()))
                .limit(Limits.require(limit))
                .map(Row::view)
                .toList();
    }

    @Override
    public synchronized List<RunRecordView> liveRunsUsing(
            String tenant, String sandboxKey, int limit) {
        return tenantRows(tenant)
                .filter(r -> sandboxKey.equals(r.sandboxKey) && !r.status.isTerminal())
                .sorted(Comparator.comparing((Row r) -> r.ref.id()))
                .limit(Limits.require(limit))
                .map(Row::view)
                .toList();
    }

    @Override
    public synchronized List<RunRecordView> list(
            String tenant,
            Optional<String> threadId,
            Optional<RunStatus> status,
            Optional<PageCursor> after,
            int limit) {
        return tenantRows(tenant)
                .filter(r -> threadId.map(t -> t.equals(r.created.threadId())).orElse(true))
                .filter(r -> status.map(s -> s == r.status).orElse(true))
                .filter(r -> after.map(c -> c.below(r.startedAt, r.runId)).orElse(true))
                .sorted(NEWEST_FIRST)
                .limit(Limits.require(limit))
                .map(Row::view)
                .toList();
    }

    private Optional<Row> rowOf(String tenant, String runId) {
        return tenantRows(tenant).filter(r -> r.runId.equals(runId)).findFirst();
    }

    private Stream<Row> tenantRows(String tenant) {
        return rows.values().stream().filter(r -> r.created.tenant().equals(tenant));
    }

    // --- ClaimStore ---

    @Override
    public synchronized OptionalLong claim(RunRef run, String nodeId) {
        Row row = rows.get(run.id());
        if (row == null || row.status.isTerminal()) {
            return OptionalLong.empty();
        }
        row.epoch++;
        return OptionalLong.of(row.epoch);
    }

    @Override
    public synchronized OptionalLong epoch(RunRef run) {
        Row row = rows.get(run.id());
        return row == null ? OptionalLong.empty() : DriverClaim.epochOf(row.epoch);
    }

    // --- EventLog ---

    @Override
    public synchronized List<LoggedChunk> append(RunRef run, long epoch, List<JsonObject> chunks) {
        List<PreparedChunk> prepared = PreparedChunk.all(chunks);
        Row row = fenced(run, epoch);
        if (row == null) {
            throw new StaleEpochException(run, epoch, epoch(run));
        }
        afterFenceCheck.run();
        List<LoggedChunkWithFingerprint> log = logs.get(run.id());
        List<LoggedChunk> logged = new ArrayList<>(prepared.size());
        for (PreparedChunk chunk : prepared) {
            LoggedChunk stored = chunk.at(log.size() + 1L);
            log.add(new LoggedChunkWithFingerprint(stored, chunk.stored()));
            logged.add(stored);
        }
        return logged;
    }

    @Override
    public synchronized FinishResult finishRun(
            RunRef run,
            long epoch,
            RunStatus status,
            Instant finishedAt,
            Optional<RunError> error) {
        if (!status.isTerminal()) {
            throw new IllegalArgumentException("not a terminal status: " + status.wireName());
        }
        Row row = fenced(run, epoch);
        if (row == null) {
            return FinishResult.STALE_EPOCH;
        }
        afterFenceCheck.run();
        if (row.status.isTerminal()) {
            return FinishResult.ALREADY_TERMINAL;
        }
        row.status = status;
        row.finishedAt = finishedAt;
        row.error = error.orElse(null);
        row.version++;
        return FinishResult.FINISHED;
    }

    /** The run's row when {@code epoch} is its current, claimed epoch; otherwise null. */
    private Row fenced(RunRef run, long epoch) {
        Row row = rows.get(run.id());
        return row != null && row.epoch != DriverClaim.UNCLAIMED && row.epoch == epoch ? row : null;
    }

    @Override
    public synchronized List<LoggedChunk> read(RunRef run, long afterSeq, int limit) {
        return log(run).stream()
                .map(LoggedChunkWithFingerprint::chunk)
                .filter(c -> c.seq() > afterSeq)
                .limit(Limits.require(limit))
                .toList();
    }

    @Override
    public synchronized long size(RunRef run) {
        return log(run).size();
    }

    @Override
    public synchronized long lastSeq(RunRef run) {
        return log(run).size();
    }

    @Override
    public synchronized List<StoredChunk> fingerprints(RunRef run) {
        return log(run).stream().map(LoggedChunkWithFingerprint::stored).toList();
    }

    private List<LoggedChunkWithFingerprint> log(RunRef run) {
        return logs.getOrDefault(run.id(), List.of());
    }
}
