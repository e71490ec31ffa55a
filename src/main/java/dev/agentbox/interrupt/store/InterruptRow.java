package dev.agentbox.interrupt.store;

import dev.agentbox.run.store.RunRef;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Lob;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;
import java.io.StringReader;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One durable wait of a tool call (table {@code AB_INTERRUPT}). Invariants: {@code (RUN_PK,
 * CALL_KEY)} is unique (a database constraint: two servers opening the same call store one row);
 * {@code STATUS} leaves {@code PENDING} at most once, and only through the store's conditional
 * updates, which also set {@code ANSWERED_AT} (and {@code PAYLOAD_JSON} for an answer with one).
 */
@Entity
@Table(
        name = "AB_INTERRUPT",
        uniqueConstraints =
                @UniqueConstraint(
                        name = "AB_INTERRUPT_RUN_CALL",
                        columnNames = {"RUN_PK", "CALL_KEY"}),
        indexes = @Index(name = "AB_INTERRUPT_DUE_IX", columnList = "STATUS, EXPIRES_AT"))
public class InterruptRow {

    @Id
    @Column(name = "ID", length = 36)
    private String id;

    @Column(name = "RUN_PK", nullable = false, length = RunRef.MAX_LENGTH)
    private String runPk;

    @Column(name = "TENANT", nullable = false, length = 128)
    private String tenant;

    @Column(name = "RUN_ID", nullable = false, length = 255)
    private String runId;

    @Column(name = "CALL_KEY", nullable = false, length = NewInterrupt.MAX_KEY)
    private String callKey;

    @Column(name = "REASON", nullable = false, length = 32)
    private String reason;

    @Column(name = "TOOL_CALL_ID", length = 255)
    private String toolCallId;

    @Column(name = "TOOL", nullable = false, length = 255)
    private String tool;

    @Lob
    @Column(name = "ARGUMENTS_JSON", nullable = false)
    private String argumentsJson;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Column(name = "EXPIRES_AT", nullable = false)
    private Instant expiresAt;

    @Enumerated(EnumType.STRING)
    @Column(name = "STATUS", nullable = false, length = 16)
    private InterruptStatus status;

    @Lob
    @Column(name = "PAYLOAD_JSON")
    private String payloadJson;

    @Column(name = "ANSWERED_AT")
    private Instant answeredAt;

    protected InterruptRow() {}

    InterruptRow(NewInterrupt n) {
        this.id = UUID.randomUUID().toString();
        this.runPk = n.run().id();
        this.tenant = n.tenant();
        this.runId = n.runId();
        this.callKey = n.callKey();
        this.reason = n.reason();
        this.toolCallId = n.toolCallId().orElse(null);
        this.tool = n.tool();
        this.argumentsJson = n.arguments().toString();
        this.createdAt = n.createdAt();
        this.expiresAt = n.expiresAt();
        this.status = InterruptStatus.PENDING;
    }

    Interrupt view() {
        return new Interrupt(
                id,
                new RunRef(runPk),
                tenant,
                runId,
                callKey,
                reason,
                Optional.ofNullable(toolCallId),
                tool,
                parse(argumentsJson),
                createdAt,
                expiresAt,
                status,
                Optional.ofNullable(payloadJson).map(InterruptRow::parse),
                Optional.ofNullable(answeredAt));
    }

    private static JsonObject parse(String text) {
        try (JsonReader r = Json.createReader(new StringReader(text))) {
            return r.readObject();
        }
    }
}
