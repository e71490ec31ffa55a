package dev.agentbox.reaper;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.platform.lease.LeaseRow;
import dev.agentbox.run.store.DriverClaim;
import dev.agentbox.run.store.RunEvent;
import dev.agentbox.run.store.RunRecord;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.testing.NeedsDocker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh Derby database per test class and a {@link ReaperFixture} per test on emptied tables: a
 * sweep lists the detached runs of every tenant, so each test sees only its own.
 */
@NeedsDocker
abstract class ReaperDatabaseTest {

    static TestDatabase db;
    ReaperFixture f;

    @BeforeAll
    static void openDatabase() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
    }

    @AfterAll
    static void closeDatabase() {
        db.close();
    }

    @BeforeEach
    void fixture() {
        clear(db);
        f = new ReaperFixture(db, "node-a");
    }

    @AfterEach
    void cleanUp() {
        f.close();
    }

    static void clear(TestDatabase db) {
        db.clear(
                RunEvent.class,
                DriverClaim.class,
                RunRecord.class,
                SandboxInstance.class,
                LeaseRow.class);
    }
}
