package dev.agentbox.sandbox;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.sandbox.store.JpaSandboxInstanceStore;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class JpaDerbySandboxInstanceStoreTest extends SandboxInstanceStoreContract {

    private static TestDatabase db;
    private static SandboxInstanceStore store;

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
        store =
                db.transactional(
                        SandboxInstanceStore.class,
                        em -> new JpaSandboxInstanceStore(em, db.dataSource()));
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Override
    protected SandboxInstanceStore store() {
        return store;
    }
}
