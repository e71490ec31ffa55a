package dev.agentbox.run.store;

class JpaPostgresRunStoreTest extends RunStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.postgres();
    }
}
