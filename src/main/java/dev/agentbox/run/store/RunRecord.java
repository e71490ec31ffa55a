package dev.agentbox.run.store;

import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.JournalId;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Lob;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;
import jakarta.persistence.Version;
import java.io.StringReader;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The durable record of one agent run (table {@code AB_RUN}).
 *
 * <p>Invariants: {@code (TENANT, RUN_ID)} is unique (a database constraint, so two servers cannot
 * both create the same run); every nullable column is an absent field, and {@code CANCEL_REQUESTED}
 * is a nullable boolean so that "never requested" (NULL) and {@code false} stay distinct. The
 * driver epoch is NOT here: it is the version of the run's {@link DriverClaim} row, so that record
 * writes (cancel, detach, usage) can never bump or fence the epoch. Rows are written by the stores
 * only; every store write to this row bumps {@code VERSION}.
 */
@Entity
@Table(
        name = "AB_RUN",
        uniqueConstraints =
                @UniqueConstraint(
                        name = "AB_RUN_TENANT_RUN_ID",
                        columnNames = {"TENANT", "RUN_ID"}),
        indexes = {
            @Index(name = "AB_RUN_THREAD_IX", columnList = "TENANT, THREAD_ID, STARTED_AT"),
            @Index(name = "AB_RUN_DETACHED_IX", columnList = "DETACHED_SINCE"),
            @Index(name = "AB_RUN_LIVE_IX", columnList = "STATUS, STARTED_AT")
        })
public class RunRecord {

    static final int MAX_TEXT = 8000;

    @Id
    @Column(name = "RUN_PK", length = RunRef.MAX_LENGTH)
    private String runPk;

    @Column(name = "TENANT", nullable = false, length = NewRun.MAX_TENANT)
    private String tenant;

    @Column(name = "RUN_ID", nullable = false, length = NewRun.MAX_RUN_ID)
    private String runId;

    @Column(name = "THREAD_ID", nullable = false, length = NewRun.MAX_THREAD_ID)
    private String threadId;

    @Column(name = "HARNESS", nullable = false, length = 32)
    private String harness;

    @Enumerated(EnumType.STRING)
    @Column(name = "STATUS", nullable = false, length = 16)
    private RunStatus status;

    @Column(name = "STARTED_AT", nullable = false)
    private Instant startedAt;

    @Column(name = "FINISHED_AT")
    private Instant finishedAt;

    @Column(name = "ERROR_MESSAGE", length = RunError.MAX_MESSAGE)
    private String errorMessage;

    @Column(name = "ERROR_CODE", length = RunError.MAX_CODE)
    private String errorCode;

    @Column(name = "USAGE_JSON", length = MAX_TEXT)
    private String usageJson;

    @Column(name = "SANDBOX_KEY", length = NewRun.MAX_SANDBOX_KEY)
    private String sandboxKey;

    @Column(name = "DETACHED_SINCE")
    private Instant detachedSince;

    @Column(name = "CANCEL_REQUESTED")
    private Boolean cancelRequested;

    @Column(name = "DURABLE", nullable = false)
    private boolean durable;

    @Column(name = "DETACH_ON_DISCONNECT", nullable = false)
    private boolean detachOnDisconnect;

    @Column(name = "DESTROY_ON_COMPLETE", nullable = false)
    private boolean destroyOnComplete;

    @Lob
    @Column(name = "COMMAND_TEXT")
    private String command;

    @Lob
    @Column(name = "PROMPT_TEXT")
    private String prompt;

    /** NULL only for runs recorded before nonces were random; those use the derived nonce. */
    @Column(name = "JOURNAL_NONCE", length = NewRun.NONCE_LENGTH)
    private String journalNonce;

    @Column(name = "MAX_DURATION_MS")
    private Long maxDurationMs;

    /** Nullable for rows written before the column existed; null reads as false. */
    @Column(name = "FILE_EVENTS")
    private Boolean fileEvents;

    /** The approval rules' JSON array; NULL for none (and for rows written before the column). */
    @Lob
    @Column(name = "APPROVALS_JSON")
    private String approvalsJson;

    /**
     * The run's tool bridge ({@code {"tokenSha256","tools"}}); NULL for none (and for rows written
     * before the column). Survives takeover and later changes of the run's agent definition.
     */
    @Lob
    @Column(name = "BRIDGE_JSON")
    private String bridgeJson;

    @Version
    @Column(name = "VERSION")
    private long version;

    protected RunRecord() {}

    RunRecord(RunRef ref, NewRun run) {
        this.runPk = ref.id();
        this.tenant = run.tenant();
        this.runId = run.runId();
        this.threadId = run.threadId();
        this.harness = run.harness().wireName();
        this.status = RunStatus.RUNNING;
        this.startedAt = run.startedAt();
        this.durable = run.durable();
        this.detachOnDisconnect = run.detachOnDisconnect();
        this.destroyOnComplete = run.destroyOnComplete();
        this.command = run.command().orElse(null);
        this.prompt = run.prompt().orElse(null);
        this.sandboxKey = run.sandboxKey().orElse(null);
        this.journalNonce = run.journalNonce();
        this.maxDurationMs = run.maxDurationMs().orElse(null);
        this.fileEvents = run.fileEvents();
        this.approvalsJson = run.approvals().isEmpty() ? null : run.approvals().toString();
        this.bridgeJson = run.bridge().map(Object::toString).orElse(null);
    }

    public RunRef ref() {
        return new RunRef(runPk);
    }

    public RunStatus status() {
        return status;
    }

    /** The snapshot of this row, with the epoch read from the run's claim row. */
    RunRecordView view(OptionalLong driverEpoch) {
        return new RunRecordView(
                ref(),
                tenant,
                runId,
                threadId,
                Harness.of(harness)
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "unknown harness stored: " + harness)),
                status,
                startedAt,
                Optional.ofNullable(finishedAt),
                Optional.ofNullable(errorMessage)
                        .map(m -> new RunError(m, Optional.ofNullable(errorCode))),
                Optional.ofNullable(usageJson).map(RunRecord::parseObject),
                Optional.ofNullable(sandboxKey),
                Optional.ofNullable(detachedSince),
                Optional.ofNullable(cancelRequested),
                durable,
                detachOnDisconnect,
                destroyOnComplete,
                Optional.ofNullable(command),
                Optional.ofNullable(prompt),
                driverEpoch,
                version,
                journalNonce != null ? journalNonce : JournalId.derived(runId).nonce(),
                Optional.ofNullable(maxDurationMs),
                Boolean.TRUE.equals(fileEvents),
                approvalsJson == null ? JsonValue.EMPTY_JSON_ARRAY : parseArray(approvalsJson),
                Optional.ofNullable(bridgeJson).map(RunRecord::parseObject));
    }

    /** The stored text of a usage object; rejects one too large for its column. */
    static String usageText(JsonObject usage) {
        String text = usage.toString();
        if (text.length() > MAX_TEXT) {
            throw new IllegalArgumentException(
                    "usage JSON longer than " + MAX_TEXT + " characters");
        }
        return text;
    }

    static JsonArray parseArray(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readArray();
        }
    }

    static JsonObject parseObject(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
