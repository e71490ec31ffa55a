package dev.agentbox.run;

import dev.agentbox.platform.TestDatabase;

class JpaDerbyRunEventStreamStressTest extends RunEventStreamStressContract {

    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.DERBY;
    }
}
