package dev.agentbox.run;

import dev.agentbox.platform.TestDatabase;

class JpaPostgresRunEventStreamStressTest extends RunEventStreamStressContract {

    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
