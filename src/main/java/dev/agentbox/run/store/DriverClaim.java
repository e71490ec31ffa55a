package dev.agentbox.run.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.util.OptionalLong;

/**
 * The driver claim of one run (table {@code AB_RUN_CLAIM}); its JPA {@code @Version} IS the driver
 * epoch.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Exactly one row per run, inserted together with the run record at version 0 and {@code
 *       NODE_ID} NULL, meaning "never claimed" (the epoch is absent). Because the row already
 *       exists, every claim is an UPDATE of a row it holds locked: two first claims serialize on
 *       the row lock instead of racing on an insert.
 *   <li>Written ONLY by a claim, each of which increments the version by exactly one (1 after the
 *       first claim, +1 per takeover). Cancel, detach and usage writes go to {@link RunRecord} and
 *       can never bump the epoch or fence the live driver out.
 *   <li>Every fenced write (append, terminal update) locks this row and compares its version with
 *       the writer's epoch in the same transaction as the write.
 * </ul>
 */
@Entity
@Table(name = "AB_RUN_CLAIM")
public class DriverClaim {

    /** Version of the row as inserted with its run: never claimed. */
    static final long UNCLAIMED = 0;

    @Id
    @Column(name = "RUN_PK", length = RunRef.MAX_LENGTH)
    private String runPk;

    @Column(name = "NODE_ID", length = 255)
    private String nodeId;

    @Version
    @Column(name = "VERSION")
    private long version;

    protected DriverClaim() {}

    /** The epoch of the current driver; {@link #UNCLAIMED} before the first claim. */
    long version() {
        return version;
    }

    /** The driver epoch a claim-row version stands for: none while {@link #UNCLAIMED}. */
    static OptionalLong epochOf(long claimVersion) {
        return claimVersion == UNCLAIMED ? OptionalLong.empty() : OptionalLong.of(claimVersion);
    }

    /** Records the claiming node; the caller forces the version increment. */
    void claimedBy(String nodeId) {
        this.nodeId = nodeId;
    }
}
