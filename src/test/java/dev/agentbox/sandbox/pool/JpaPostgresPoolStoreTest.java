package dev.agentbox.sandbox.pool;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.sandbox.store.JpaPoolStore;
import dev.agentbox.sandbox.store.PoolStore;
import dev.agentbox.testing.NeedsPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

@NeedsPostgres
class JpaPostgresPoolStoreTest extends PoolStoreContract {

    private static TestDatabase db;
    private static PoolStore store;

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.POSTGRESQL);
        store = db.transactional(PoolStore.class, JpaPoolStore::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Override
    protected PoolStore store() {
        return store;
    }
}
