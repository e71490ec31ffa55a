package dev.agentbox.run.store;

import java.util.Optional;

/**
 * Creates a run so that losing a race for its (tenant, runId) is always a plain {@code
 * Optional.empty()}.
 *
 * <p>The race it guards against: two requests create the same runId at once; both see no existing
 * run, both insert, and the database's unique constraint fails the second at commit. Call this
 * outside any transaction (the failed one must be the store call's own): a failure is then
 * re-checked with a fresh read, and when the run now exists, the caller simply lost the race.
 */
public final class RunCreation {

    private RunCreation() {}

    /**
     * @return the created record, or empty when the tenant's runId exists (before or because of a
     *     concurrent create)
     * @throws RuntimeException the store's failure when the run still does not exist afterwards (a
     *     broken system, not a lost race)
     */
    public static Optional<RunRecordView> create(RunStore store, NewRun run) {
        try {
            return store.create(run);
        } catch (RuntimeException failed) {
            if (store.find(run.tenant(), run.runId()).isPresent()) {
                return Optional.empty();
            }
            throw failed;
        }
    }
}
