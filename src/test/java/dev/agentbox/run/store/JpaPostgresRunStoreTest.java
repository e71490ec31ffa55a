package dev.agentbox.run.store;

import dev.agentbox.testing.NeedsPostgres;

@NeedsPostgres
class JpaPostgresRunStoreTest extends RunStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.postgres();
    }
}
