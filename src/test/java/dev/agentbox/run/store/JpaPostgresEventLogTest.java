package dev.agentbox.run.store;

class JpaPostgresEventLogTest extends EventLogContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.postgres();
    }
}
