package dev.agentbox.run.store;

import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.JournalId;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An immutable snapshot of one run record as the stores return it; the API layer maps it to the run
 * JSON of docs/api.md, writing every empty Optional as an absent member (so {@code cancelRequested
 * = Optional.of(false)} is shown, {@code Optional.empty()} is not).
 *
 * @param ref the store's reference to the run, for the claim and the log
 * @param driverEpoch the version of the run's claim row; empty until the first claim
 * @param version the record row's own optimistic version (changes on every record write)
 * @param journalNonce the exit-sentinel nonce of the run's journal: random per run; for a record
 *     written before nonces were stored, the one derived from the runId ({@link JournalId#derived})
 * @param maxDurationMs the run's duration bound, when it has one
 * @param fileEvents whether the run's log gets {@code CUSTOM file.changed} chunks for changes in
 *     its workspace (a successor restarts the watcher)
 * @param approvals the run's approval rules, stored form ({@code []} for none): every server that
 *     drives or takes the run over gates its tool calls by these
 * @param bridge the run's tool bridge, stored form ({@code dev.agentbox.run.RunBridge}: the SHA-256
 *     of its token and its tools, never the token); empty for a run without one. Never shown in a
 *     view.
 */
public record RunRecordView(
        RunRef ref,
        String tenant,
        String runId,
        String threadId,
        Harness harness,
        RunStatus status,
        Instant startedAt,
        Optional<Instant> finishedAt,
        Optional<RunError> error,
        Optional<JsonObject> usage,
        Optional<String> sandboxKey,
        Optional<Instant> detachedSince,
        Optional<Boolean> cancelRequested,
        boolean durable,
        boolean detachOnDisconnect,
        boolean destroyOnComplete,
        Optional<String> command,
        Optional<String> prompt,
        OptionalLong driverEpoch,
        long version,
        String journalNonce,
        Optional<Long> maxDurationMs,
        boolean fileEvents,
        JsonArray approvals,
        Optional<JsonObject> bridge) {

    /**
     * This snapshot with {@code reported} as its status: for the read views, which report a live
     * run without a live driver as {@code interrupted} while the stored status stays {@code
     * running}.
     */
    public RunRecordView withStatus(RunStatus reported) {
        return new RunRecordView(
                ref,
                tenant,
                runId,
                threadId,
                harness,
                reported,
                startedAt,
                finishedAt,
                error,
                usage,
                sandboxKey,
                detachedSince,
                cancelRequested,
                durable,
                detachOnDisconnect,
                destroyOnComplete,
                command,
                prompt,
                driverEpoch,
                version,
                journalNonce,
                maxDurationMs,
                fileEvents,
                approvals,
                bridge);
    }

    public boolean isTerminal() {
        return status.isTerminal();
    }

    /** The run's journal: what its writer, its readers and the reaper's probe must agree on. */
    public JournalId journal() {
        return new JournalId(runId, journalNonce);
    }
}
