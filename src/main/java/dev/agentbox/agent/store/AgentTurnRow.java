package dev.agentbox.agent.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Lob;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;
import java.time.Instant;
import java.util.UUID;

/**
 * An {@link AgentTurn} (table {@code AB_AGENT_TURN}). Invariant: {@code (TENANT, RUN_ID)} is
 * unique, as for runs: of two concurrent first POSTs of one runId exactly one inserts its turn and
 * starts the run; the other streams that run.
 */
@Entity
@Table(
        name = "AB_AGENT_TURN",
        uniqueConstraints =
                @UniqueConstraint(
                        name = "AB_AGENT_TURN_TENANT_RUN_ID",
                        columnNames = {"TENANT", "RUN_ID"}),
        indexes =
                @Index(
                        name = "AB_AGENT_TURN_THREAD_IX",
                        columnList = "TENANT, AGENT_ID, THREAD_ID, CREATED_AT"))
public class AgentTurnRow {

    @Id
    @Column(name = "ID", length = 36)
    private String id;

    @Column(name = "TENANT", nullable = false, length = 128)
    private String tenant;

    @Column(name = "RUN_ID", nullable = false, length = 255)
    private String runId;

    @Column(name = "AGENT_ID", nullable = false, length = 200)
    private String agentId;

    @Column(name = "THREAD_ID", nullable = false, length = 255)
    private String threadId;

    @Column(name = "USER_MESSAGE_ID", nullable = false, length = 255)
    private String userMessageId;

    @Lob
    @Column(name = "USER_TEXT", nullable = false)
    private String userText;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    /** The run a continuation streams; null for a turn that started its own run. */
    @Column(name = "BASE_RUN_ID", length = 255)
    private String baseRunId;

    /** Where a continuation starts in its base run's log; null for a turn of its own run. */
    @Column(name = "START_SEQ")
    private Long startSeq;

    protected AgentTurnRow() {}

    AgentTurnRow(AgentTurn t) {
        this.id = UUID.randomUUID().toString();
        this.tenant = t.tenant();
        this.runId = t.runId();
        this.agentId = t.agentId();
        this.threadId = t.threadId();
        this.userMessageId = t.userMessageId();
        this.userText = t.userText();
        this.createdAt = t.createdAt();
        if (t.continuation()) {
            this.baseRunId = t.baseRunId();
            this.startSeq = t.startSeq();
        }
    }

    AgentTurn view() {
        return new AgentTurn(
                tenant,
                runId,
                agentId,
                threadId,
                userMessageId,
                userText,
                createdAt,
                baseRunId != null ? baseRunId : runId,
                startSeq != null ? startSeq : 0);
    }
}
