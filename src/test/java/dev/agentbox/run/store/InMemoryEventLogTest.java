package dev.agentbox.run.store;

class InMemoryEventLogTest extends EventLogContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.IN_MEMORY;
    }
}
