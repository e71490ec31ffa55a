package dev.agentbox.tool;

import java.util.concurrent.CompletionStage;

/**
 * Where a call of a run's client tool goes: the person's client runs it and answers later, possibly
 * through another server. Implementations are idempotent on {@link ToolCall#callKey()} (a successor
 * after a takeover asks again for a call already waiting and gets the same wait).
 */
@FunctionalInterface
public interface ClientToolCalls {

    /** The client's answer: the text the agent is handed, and whether it is an error result. */
    record Answer(String text, boolean error) {}

    /** No client: every call is an error result (runs without client tools). */
    ClientToolCalls NONE =
            (call, toolCallId) ->
                    java.util.concurrent.CompletableFuture.completedFuture(
                            new Answer("no client runs this tool", true));

    /**
     * Completes with the client's answer to {@code call}, streamed as tool call {@code toolCallId};
     * may complete much later.
     */
    CompletionStage<Answer> call(ToolCall call, String toolCallId);
}
