package dev.agentbox.run.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.OptionalLong;

/** {@link ClaimStore} on the {@code AB_RUN_CLAIM} table. */
@ApplicationScoped
@Transactional
public class JpaClaimStore implements ClaimStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaClaimStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaClaimStore(EntityManager em) {
        this.em = em;
    }

    @Override
    public OptionalLong claim(RunRef run, String nodeId) {
        DriverClaim claim = lock(em, run);
        if (claim == null) {
            return OptionalLong.empty();
        }
        // Read the status only now, under the claim lock: a fenced finishRun holds the same
        // lock while it makes the record terminal, so once we have the lock its commit is
        // visible and a just-finished run is never re-claimed.
        RunRecord record = em.find(RunRecord.class, run.id());
        if (record == null || record.status().isTerminal()) {
            return OptionalLong.empty();
        }
        claim.claimedBy(nodeId);
        // Force the increment: a node re-claiming its own run changes no column, yet it is a
        // new epoch (the previous driver in that node may still be running).
        em.lock(claim, LockModeType.OPTIMISTIC_FORCE_INCREMENT);
        em.flush();
        return OptionalLong.of(claim.version());
    }

    @Override
    public OptionalLong epoch(RunRef run) {
        DriverClaim claim = em.find(DriverClaim.class, run.id());
        return claim == null ? OptionalLong.empty() : DriverClaim.epochOf(claim.version());
    }

    /**
     * The run's claim row, locked for update until the transaction ends ({@code SELECT … FOR
     * UPDATE} on PostgreSQL, {@code FOR UPDATE WITH RS} on Derby), read after the lock was granted,
     * so its version is the latest committed epoch. Null for an unknown run.
     */
    static DriverClaim lock(EntityManager em, RunRef run) {
        return em.find(DriverClaim.class, run.id(), LockModeType.PESSIMISTIC_WRITE);
    }
}
