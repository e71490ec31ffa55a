package dev.agentbox.sandbox.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Optional;

/**
 * A warm sandbox made ahead of demand, waiting to be claimed by an ensure ({@link SandboxPool}).
 *
 * <p>States: {@code READY} (no tenant, anyone's ensure may claim it), then {@code CLAIMED} for the
 * moment between the compare-and-set that hands it to one ensure and the sandbox record that makes
 * it that tenant's; the row is deleted once the record is stored. A {@code CLAIMED} row that
 * outlives its ensure (a server that died mid-claim) is destroyed by {@code PoolUpkeep#tidy}. The
 * row is written only after the sandbox exists, so a sandbox without a row is either being made or
 * an orphan, which the orphan collector finds by its labels.
 */
@Entity
@Table(name = "AB_POOLED_SANDBOX")
public class PooledSandbox {

    public enum State {
        READY,
        CLAIMED
    }

    @Id
    @Column(name = "PROVIDER_SANDBOX_ID", length = 255)
    private String providerSandboxId;

    @Column(name = "PROVIDER", nullable = false, length = 64)
    private String provider;

    /** the pool entry's key: which image and policy this sandbox was made with. */
    @Column(name = "POOL_KEY", nullable = false, length = 64)
    private String poolKey;

    @Column(name = "STATE", nullable = false, length = 16)
    private String state;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    /** The server that made it (for logs and its drain on stop). */
    @Column(name = "CREATED_BY", nullable = false, length = 255)
    private String createdBy;

    @Column(name = "CLAIMED_AT")
    private Instant claimedAt;

    /** The sandbox key the claim is for; {@code retired:*} when the pool itself retired it. */
    @Column(name = "CLAIMED_FOR", length = 80)
    private String claimedFor;

    protected PooledSandbox() {}

    public PooledSandbox(
            String providerSandboxId,
            String provider,
            String poolKey,
            Instant createdAt,
            String createdBy) {
        this.providerSandboxId = providerSandboxId;
        this.provider = provider;
        this.poolKey = poolKey;
        this.state = State.READY.name();
        this.createdAt = createdAt;
        this.createdBy = createdBy;
    }

    /** The claim's compare-and-set as it was written, on a detached copy (see JpaPoolStore). */
    void claimedCopy(String claimedFor, Instant at) {
        this.state = State.CLAIMED.name();
        this.claimedFor = claimedFor;
        this.claimedAt = at;
    }

    public String providerSandboxId() {
        return providerSandboxId;
    }

    public String provider() {
        return provider;
    }

    public String poolKey() {
        return poolKey;
    }

    public State state() {
        return State.valueOf(state);
    }

    public Instant createdAt() {
        return createdAt;
    }

    public String createdBy() {
        return createdBy;
    }

    public Optional<Instant> claimedAt() {
        return Optional.ofNullable(claimedAt);
    }

    public Optional<String> claimedFor() {
        return Optional.ofNullable(claimedFor);
    }
}
