package dev.agentbox.run;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.Slow;

@Slow
class JpaDerbyRunEventStreamStressTest extends RunEventStreamStressContract {

    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.DERBY;
    }
}
