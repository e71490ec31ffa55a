package dev.agentbox.interrupt.store;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;

@NeedsPostgres
class JpaPostgresInterruptStoreTest extends InterruptStoreContract {

    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
