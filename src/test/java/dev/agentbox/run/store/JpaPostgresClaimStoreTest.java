package dev.agentbox.run.store;

import dev.agentbox.testing.NeedsPostgres;

@NeedsPostgres
class JpaPostgresClaimStoreTest extends ClaimStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.postgres();
    }
}
