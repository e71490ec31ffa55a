package dev.agentbox.run.store;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

@NeedsPostgres
class JpaPostgresViewerStoreTest extends ViewerStoreContract {

    private static TestDatabase db;
    private static ViewerStore store;

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.POSTGRESQL);
        store = db.transactional(ViewerStore.class, JpaViewerStore::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Override
    protected ViewerStore store() {
        return store;
    }
}
