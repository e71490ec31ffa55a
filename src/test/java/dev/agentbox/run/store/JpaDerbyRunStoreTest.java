package dev.agentbox.run.store;

class JpaDerbyRunStoreTest extends RunStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.derby();
    }
}
