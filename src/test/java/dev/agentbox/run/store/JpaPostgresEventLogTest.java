package dev.agentbox.run.store;

import dev.agentbox.testing.NeedsPostgres;

@NeedsPostgres
class JpaPostgresEventLogTest extends EventLogContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.postgres();
    }
}
