package dev.agentbox.platform.lease;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

@NeedsPostgres
class JpaPostgresLeaseStoreTest extends LeaseStoreContract {

    private static TestDatabase db;
    private static LeaseStore store;

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.POSTGRESQL);
        store = db.transactional(LeaseStore.class, JpaLeaseStore::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Override
    protected LeaseStore store() {
        return store;
    }
}
