package dev.agentbox.run.store;

class JpaPostgresClaimStoreTest extends ClaimStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.postgres();
    }
}
