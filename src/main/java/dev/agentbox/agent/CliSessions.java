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
 * The CLI session a thread continues: the one the newest earlier run of the agent in the thread
 * with the same CLI harness logged ({@code CUSTOM claude-code.session-id}, {@code CUSTOM
 * codex.session-id}, or an ACP agent's {@code CUSTOM acp.session}). The CLIs print it first, so
 * only the first {@value #CHUNKS} chunks of the newest {@value #RUNS} runs are read.
 */
@ApplicationScoped
public class CliSessions {

    static final int RUNS = 10;
    static final int CHUNKS = 200;

    @Inject JpaAgentTurnStore turns;

    @Inject RunService runs;

    /** The CUSTOM chunk a harness's translator logs the CLI's session id in. */
    static Optional<String> sessionChunk(Harness harness) {
        return switch (harness) {
            case CLAUDE_CODE -> Optional.of("claude-code.session-id");
            case CODEX -> Optional.of("codex.session-id");
            case ACP -> Optional.of("acp.session");
            case COMMAND -> Optional.empty();
        };
    }

    /**
     * The session of {@code harness} to resume for a new run {@code runId}, if an earlier run of
     * that harness logged one; never one for the {@code command} harness.
     */
    public Optional<String> latest(
            String tenant, String agentId, String threadId, String runId, Harness harness) {
        Optional<String> chunkName = sessionChunk(harness);
        if (chunkName.isEmpty()) {
            return Optional.empty();
        }
        for (AgentTurn turn : turns.thread(tenant, agentId, threadId, RUNS)) {
            if (turn.runId().equals(runId)) {
                continue;
            }
            Optional<RunRecordView> run = find(tenant, turn.runId());
            if (run.isEmpty() || run.get().harness() != harness) {
                continue;
            }
            for (LoggedChunk c : runs.snapshot(run.get(), 0, CHUNKS)) {
                if (c.type().equals("CUSTOM")) {
                    JsonObject chunk = c.chunk();
                    if (!chunkName.get().equals(chunk.getString("name", ""))) {
                        continue;
                    }
                    if (chunk.get("value") instanceof JsonString id
                            && AgentCommands.isSessionId(id.getString())) {
                        return Optional.of(id.getString());
                    }
                    // acp.session: {"sessionId","continued"}; the id goes into a JSON request,
                    // never onto a command line.
                    if (chunk.get("value") instanceof jakarta.json.JsonObject v
                            && v.get("sessionId") instanceof JsonString id
                            && !id.getString().isEmpty()
                            && id.getString().length() <= 256) {
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
