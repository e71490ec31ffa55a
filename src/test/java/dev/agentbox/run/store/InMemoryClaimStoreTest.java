package dev.agentbox.run.store;

class InMemoryClaimStoreTest extends ClaimStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.IN_MEMORY;
    }
}
