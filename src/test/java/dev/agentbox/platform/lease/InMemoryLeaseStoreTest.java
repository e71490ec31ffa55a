package dev.agentbox.platform.lease;

class InMemoryLeaseStoreTest extends LeaseStoreContract {

    private final LeaseStore store = new InMemoryLeaseStore();

    @Override
    protected LeaseStore store() {
        return store;
    }
}
