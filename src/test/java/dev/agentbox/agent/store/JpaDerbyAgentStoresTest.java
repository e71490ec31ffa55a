package dev.agentbox.agent.store;

import dev.agentbox.platform.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

class JpaDerbyAgentStoresTest extends AgentStoresContract {

    @BeforeAll
    static void openDerby() {
        open(TestDatabase.Kind.DERBY);
    }
}
