package dev.agentbox.agent;

import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.JpaAgentStore;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.run.ToolSecrets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The secret a run's HTTP tool posts are signed with: the {@code signingSecret} of the agent
 * definition the run was started through (the one its creating {@code PUT} showed once), the same
 * secret its webhooks are signed with.
 *
 * <p>Looked up each time a driver starts the run's bridge, never stored with the run: the run
 * record, its views and the logs never hold it, and a server that takes the run over signs with the
 * same secret (replacing a definition keeps it). A run that is not an agent's, or whose definition
 * is gone or has no secret, gets none: its posts are unsigned, which a receiver that checks
 * signatures refuses.
 */
@ApplicationScoped
public class AgentToolSecrets implements ToolSecrets {

    @Inject JpaAgentTurnStore turns;

    @Inject JpaAgentStore agents;

    AgentToolSecrets() {}

    AgentToolSecrets(JpaAgentTurnStore turns, JpaAgentStore agents) {
        this.turns = turns;
        this.agents = agents;
    }

    @Override
    public byte[] of(String tenant, String runId) {
        Optional<AgentTurn> turn = turns.find(tenant, runId);
        return turn.flatMap(t -> agents.signingSecret(tenant, t.agentId()))
                .map(s -> s.getBytes(StandardCharsets.UTF_8))
                .orElse(new byte[0]);
    }
}
