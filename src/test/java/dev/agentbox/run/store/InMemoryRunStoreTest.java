package dev.agentbox.run.store;

class InMemoryRunStoreTest extends RunStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.IN_MEMORY;
    }
}
