package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.agent.store.AgentRow;
import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.AgentTurnRow;
import dev.agentbox.agent.store.JpaAgentStore;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.platform.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A run's HTTP tool posts are signed with its agent definition's signing secret, looked up from
 * what is stored (the run's agent turn, the definition), on embedded Derby.
 */
class AgentToolSecretsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String DEF = "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"x\"}";

    private static TestDatabase db;

    @BeforeAll
    static void openDerby() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void clear() {
        db.clear(AgentTurnRow.class, AgentRow.class);
    }

    private static byte[] secretOf(String tenant, String runId) {
        return db.inTransaction(
                em ->
                        new AgentToolSecrets(new JpaAgentTurnStore(em), new JpaAgentStore(em))
                                .of(tenant, runId));
    }

    private static String definitionSecret(String tenant, String agentId) {
        return db.inTransaction(em -> new JpaAgentStore(em).signingSecret(tenant, agentId))
                .orElseThrow();
    }

    private static void turn(String tenant, String runId, String agentId) {
        db.inTransaction(
                em -> {
                    new JpaAgentTurnStore(em)
                            .create(new AgentTurn(tenant, runId, agentId, "t-1", "m1", "hi", T0));
                    return null;
                });
    }

    @Test
    void aRunOfAnAgentIsSignedWithItsDefinitionsSecretEvenAfterTheDefinitionIsReplaced() {
        db.inTransaction(em -> new JpaAgentStore(em).put("acme", "bot", DEF, T0, 0));
        String secret = definitionSecret("acme", "bot");
        assertThat(secret).startsWith("whsec_");
        turn("acme", "r1", "bot");

        assertThat(secretOf("acme", "r1")).isEqualTo(secret.getBytes(StandardCharsets.UTF_8));
        db.inTransaction(em -> new JpaAgentStore(em).put("acme", "bot", DEF, T0.plusSeconds(5), 0));
        assertThat(secretOf("acme", "r1"))
                .as("what a successor signs with after the definition was replaced")
                .isEqualTo(secret.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRunThatIsNotAnAgentsOrWhoseDefinitionIsGoneIsUnsigned() {
        assertThat(secretOf("acme", "plain")).isEmpty();
        db.inTransaction(em -> new JpaAgentStore(em).put("acme", "bot", DEF, T0, 0));
        turn("acme", "r1", "bot");
        assertThat(secretOf("other", "r1")).as("another tenant's run of that id").isEmpty();
        db.inTransaction(em -> new JpaAgentStore(em).delete("acme", "bot"));
        assertThat(secretOf("acme", "r1")).isEmpty();
    }
}
