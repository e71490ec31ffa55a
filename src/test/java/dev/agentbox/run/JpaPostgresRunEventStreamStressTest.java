package dev.agentbox.run;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;

@NeedsPostgres
class JpaPostgresRunEventStreamStressTest extends RunEventStreamStressContract {

    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
