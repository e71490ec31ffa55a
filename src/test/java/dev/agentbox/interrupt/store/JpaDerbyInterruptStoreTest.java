package dev.agentbox.interrupt.store;

import dev.agentbox.platform.TestDatabase;

class JpaDerbyInterruptStoreTest extends InterruptStoreContract {

    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.DERBY;
    }
}
