package dev.agentbox.run.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * "Node N has at least one viewer of run R until T" (table {@code AB_RUN_VIEWER}): viewers counted
 * across the cluster. One row per (run, node); the node renews its rows while its streams are open,
 * and a row of a dead node simply expires. A run is detached only when no unexpired row of any node
 * remains.
 */
@Entity
@Table(
        name = "AB_RUN_VIEWER",
        indexes = @Index(name = "AB_RUN_VIEWER_NODE_IX", columnList = "NODE_ID"))
public class RunViewer {

    @Id
    @Column(name = "ID", length = 300)
    private String id;

    @Column(name = "RUN_PK", nullable = false, length = RunRef.MAX_LENGTH)
    private String runPk;

    @Column(name = "NODE_ID", nullable = false, length = 255)
    private String nodeId;

    @Column(name = "EXPIRES_AT", nullable = false)
    private Instant expiresAt;

    protected RunViewer() {}

    RunViewer(RunRef run, String nodeId, Instant expiresAt) {
        this.id = idOf(run, nodeId);
        this.runPk = run.id();
        this.nodeId = nodeId;
        this.expiresAt = expiresAt;
    }

    static String idOf(RunRef run, String nodeId) {
        return run.id() + "@" + nodeId;
    }
}
