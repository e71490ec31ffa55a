package dev.agentbox.reaper;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

@NeedsPostgres
class PostgresReaperConcurrencyTest extends ReaperConcurrencyContract {

    private static TestDatabase db;

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.POSTGRESQL);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Override
    protected TestDatabase db() {
        return db;
    }
}
