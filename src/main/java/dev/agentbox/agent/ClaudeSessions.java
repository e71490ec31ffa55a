package dev.agentbox.agent;

import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.RunService;
import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRecordView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.util.Optional;

/**
 * The Claude session a thread continues: the one the newest earlier {@code claude-code} run of the
 * agent in the thread logged ({@code CUSTOM claude-code.session-id}). The CLI prints it first, so
 * only the first {@value #CHUNKS} chunks of the newest {@value #RUNS} runs are read.
 */
@ApplicationScoped
public class ClaudeSessions {

    /** The CUSTOM chunk the claude-code translator logs the CLI's session id in. */
    static final String SESSION_CHUNK = "claude-code.session-id";

    static final int RUNS = 10;
    static final int CHUNKS = 200;

    @Inject JpaAgentTurnStore turns;

    @Inject RunService runs;

    /** The session to resume for a new run {@code runId}, if an earlier run logged one. */
    public Optional<String> latest(String tenant, String agentId, String threadId, String runId) {
        for (AgentTurn turn : turns.thread(tenant, agentId, threadId, RUNS)) {
            if (turn.runId().equals(runId)) {
                continue;
            }
            Optional<RunRecordView> run = find(tenant, turn.runId());
            if (run.isEmpty() || run.get().harness() != Harness.CLAUDE_CODE) {
                continue;
            }
            for (LoggedChunk c : runs.snapshot(run.get(), 0, CHUNKS)) {
                if (c.type().equals("CUSTOM")) {
                    JsonObject chunk = c.chunk();
                    if (SESSION_CHUNK.equals(chunk.getString("name", ""))
                            && chunk.get("value") instanceof JsonString id
                            && AgentCommands.isSessionId(id.getString())) {
                        return Optional.of(id.getString());
                    }
                }
            }
        }
        return Optional.empty();
    }

    private Optional<RunRecordView> find(String tenant, String runId) {
        try {
            return Optional.of(runs.get(tenant, runId));
        } catch (ProblemException gone) {
            return Optional.empty();
        }
    }
}
