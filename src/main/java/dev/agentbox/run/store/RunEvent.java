package dev.agentbox.run.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Lob;
import jakarta.persistence.Table;

/**
 * One chunk of a run's event log (table {@code AB_RUN_EVENT}).
 *
 * <p>Invariants: append-only (rows are never updated); per run, {@code CHUNK_SEQ} is 1, 2, 3, …
 * without gaps, because every append assigns {@code last + 1 …} while holding the run's claim row
 * locked; the primary key {@code (RUN_PK, CHUNK_SEQ)} turns any violation into a failed transaction
 * rather than a duplicate. {@code FINGERPRINT} is {@link
 * dev.agentbox.run.harness.Chunks#fingerprint} of the chunk, stored so that alignment never has to
 * load the chunk text.
 */
@Entity
@Table(name = "AB_RUN_EVENT")
@IdClass(RunEventId.class)
public class RunEvent {

    static final int MAX_TYPE = 64;

    @Id
    @Column(name = "RUN_PK", length = RunRef.MAX_LENGTH)
    private String runPk;

    @Id
    @Column(name = "CHUNK_SEQ")
    private long seq;

    @Column(name = "CHUNK_TYPE", nullable = false, length = MAX_TYPE)
    private String type;

    @Lob
    @Column(name = "CHUNK_JSON", nullable = false)
    private String json;

    @Column(name = "FINGERPRINT", nullable = false, length = 64)
    private String fingerprint;

    /**
     * TRUE for a chunk the service wrote on its own account ({@code run.accepted}, {@code
     * file.changed}), which a takeover's alignment passes over. Nullable for rows written before
     * the column existed: NULL reads as not marked.
     */
    @Column(name = "SERVICE_CHUNK")
    private Boolean service;

    protected RunEvent() {}

    RunEvent(String runPk, long seq, String type, String json, String fingerprint) {
        this(runPk, seq, type, json, fingerprint, false);
    }

    RunEvent(
            String runPk, long seq, String type, String json, String fingerprint, boolean service) {
        this.runPk = runPk;
        this.seq = seq;
        this.type = type;
        this.json = json;
        this.fingerprint = fingerprint;
        this.service = service ? Boolean.TRUE : null;
    }
}
