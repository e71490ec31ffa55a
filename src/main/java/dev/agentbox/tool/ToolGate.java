package dev.agentbox.tool;

import java.util.concurrent.CompletionStage;

/**
 * Decides, before a tool call of a run's agent runs, whether it may run: at once by rule, or after
 * a person answers an interrupt. Implementations must be idempotent on {@link ToolCall#callKey()}:
 * a server that takes a run over asks again for a call that was already waiting, and must get the
 * same wait (or its answer), never a second interrupt.
 */
public interface ToolGate {

    /** A gate that lets every call run. */
    ToolGate ALLOW_ALL =
            call -> java.util.concurrent.CompletableFuture.completedFuture(GateDecision.allow());

    /** Completes with the decision for {@code call}; may complete much later (a person answers). */
    CompletionStage<GateDecision> admit(ToolCall call);
}
