package dev.agentbox.agent.store;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;
import org.junit.jupiter.api.BeforeAll;

@NeedsPostgres
class JpaPostgresAgentStoresTest extends AgentStoresContract {

    @BeforeAll
    static void openPostgres() {
        open(TestDatabase.Kind.POSTGRESQL);
    }
}
