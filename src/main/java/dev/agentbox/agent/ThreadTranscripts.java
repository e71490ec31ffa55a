package dev.agentbox.agent;

import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.interrupt.Interrupts;
import dev.agentbox.run.RunService;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRecordView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A thread's transcript as {@code @tanstack/ai-client} loads it: for each run of the agent in the
 * thread, oldest first, the user message that started it (its id and text as the client sent them)
 * and the assistant message assembled from the run's stored log ({@link AssistantMessage}), plus
 * the newest run that has not ended ({@code activeRun}).
 *
 * <p>Bounded: the newest {@value #MAX_RUNS} runs of the thread, at most {@value #MAX_CHUNKS} chunks
 * of each run's log, at most {@value #MAX_TEXT_CHARS} characters of text and parts in all, spent
 * newest turn first (what does not fit of older turns is left out).
 */
@ApplicationScoped
public class ThreadTranscripts {

    static final int MAX_RUNS = 50;
    static final int MAX_CHUNKS = 20_000;
    static final long MAX_TEXT_CHARS = 1 << 20;
    private static final int PAGE = 1000;

    @Inject JpaAgentTurnStore turns;

    @Inject RunService runs;

    @Inject Interrupts interrupts;

    public JsonObject of(String tenant, String agentId, String threadId) {
        // A continuation streams part of its base turn's run: that turn's message shows it.
        List<AgentTurn> newestFirst =
                turns.thread(tenant, agentId, threadId, MAX_RUNS).stream()
                        .filter(t -> !t.continuation())
                        .toList();
        Map<String, RunRecordView> byRunId =
                runs.list(tenant, Optional.of(threadId), Optional.empty()).stream()
                        .collect(
                                Collectors.toMap(
                                        RunRecordView::runId, Function.identity(), (a, b) -> a));
        JsonValue activeRun = JsonValue.NULL;
        for (AgentTurn t : newestFirst) {
            RunRecordView run = byRunId.get(t.runId());
            if (run != null && !run.isTerminal()) {
                activeRun = Json.createObjectBuilder().add("runId", run.runId()).build();
                break;
            }
        }
        // Newest first against the budget, so a long history costs the oldest turns, not the
        // ones a chat shows; the messages are then put back oldest first.
        AssistantMessage.Budget budget = new AssistantMessage.Budget(MAX_TEXT_CHARS);
        List<JsonObject> newestMessagesFirst = new ArrayList<>();
        for (AgentTurn t : newestFirst) {
            RunRecordView run = byRunId.get(t.runId());
            if (run == null) {
                // Older than the newest runs the list reads: looked up on its own.
                try {
                    run = runs.get(tenant, t.runId());
                } catch (RuntimeException gone) {
                    run = null;
                }
            }
            if (run != null) {
                assistant(run, budget).ifPresent(newestMessagesFirst::add);
            }
            newestMessagesFirst.add(user(t, budget));
        }
        Collections.reverse(newestMessagesFirst);
        JsonArrayBuilder messages = Json.createArrayBuilder();
        newestMessagesFirst.forEach(messages::add);
        return Json.createObjectBuilder()
                .add("messages", messages)
                .add("activeRun", activeRun)
                .add("interrupts", pendingInterrupts(activeRun, byRunId))
                .build();
    }

    /**
     * The active run's pending interrupts as AG-UI {@code Interrupt}s ({@link AgUiInterrupts}), or
     * null when no run is active.
     */
    private JsonValue pendingInterrupts(JsonValue activeRun, Map<String, RunRecordView> byRunId) {
        if (!(activeRun instanceof JsonObject a)) {
            return JsonValue.NULL;
        }
        RunRecordView run = byRunId.get(a.getString("runId"));
        if (run == null) {
            return JsonValue.NULL;
        }
        JsonArrayBuilder b = Json.createArrayBuilder();
        interrupts.pending(run).forEach(i -> b.add(AgUiInterrupts.toAgUi(i.toJson())));
        return b.build();
    }

    /**
     * The thread's messages as AG-UI {@code Message}s, up to {@code baseRunId}'s turn, that run's
     * part only up to {@code seq} of its log: what an AG-UI run that ends at an interrupt there
     * snapshots ({@code MESSAGES_SNAPSHOT}). A user message per turn (the client's id and text),
     * then the assistant message (text and tool calls) and a {@code tool} message per tool result.
     */
    public JsonArray agUiMessages(
            String tenant, String agentId, String threadId, String baseRunId, long seq) {
        List<AgentTurn> newestFirst =
                new ArrayList<>(
                        turns.thread(tenant, agentId, threadId, MAX_RUNS).stream()
                                .filter(t -> !t.continuation())
                                .toList());
        Collections.reverse(newestFirst);
        AssistantMessage.Budget budget = new AssistantMessage.Budget(MAX_TEXT_CHARS);
        JsonArrayBuilder out = Json.createArrayBuilder();
        for (AgentTurn t : newestFirst) {
            out.add(
                    Json.createObjectBuilder()
                            .add("id", t.userMessageId())
                            .add("role", "user")
                            .add("content", budget.take(t.userText())));
            RunRecordView run;
            try {
                run = runs.get(tenant, t.runId());
            } catch (RuntimeException gone) {
                continue;
            }
            boolean base = t.runId().equals(baseRunId);
            assistant(run, budget, base ? seq : Long.MAX_VALUE)
                    .ifPresent(m -> AgUiMessages.of(m).forEach(out::add));
            if (base) {
                break;
            }
        }
        return out.build();
    }

    private static JsonObject user(AgentTurn t, AssistantMessage.Budget budget) {
        return Json.createObjectBuilder()
                .add("id", t.userMessageId())
                .add("role", "user")
                .add(
                        "parts",
                        Json.createArrayBuilder()
                                .add(
                                        Json.createObjectBuilder()
                                                .add("type", "text")
                                                .add("content", budget.take(t.userText()))))
                .add("createdAt", t.createdAt().toString())
                .build();
    }

    private Optional<JsonObject> assistant(RunRecordView run, AssistantMessage.Budget budget) {
        return assistant(run, budget, Long.MAX_VALUE);
    }

    /** The run's assistant message from its log up to {@code untilSeq} (inclusive). */
    private Optional<JsonObject> assistant(
            RunRecordView run, AssistantMessage.Budget budget, long untilSeq) {
        AssistantMessage m = new AssistantMessage(budget);
        long after = 0;
        for (int read = 0; read < MAX_CHUNKS; read += PAGE) {
            List<LoggedChunk> page = runs.snapshot(run, after, PAGE);
            boolean past = false;
            for (LoggedChunk c : page) {
                if (c.seq() > untilSeq) {
                    past = true;
                    break;
                }
                m.accept(c.chunk());
            }
            if (past || page.size() < PAGE) {
                break;
            }
            after = page.get(page.size() - 1).seq();
        }
        return m.toJson(run.runId() + "-assistant", run.startedAt());
    }
}
