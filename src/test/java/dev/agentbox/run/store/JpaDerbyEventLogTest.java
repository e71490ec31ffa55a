package dev.agentbox.run.store;

class JpaDerbyEventLogTest extends EventLogContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.derby();
    }
}
