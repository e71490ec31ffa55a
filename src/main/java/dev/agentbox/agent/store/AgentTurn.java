package dev.agentbox.agent.store;

import java.time.Instant;

/**
 * One AG-UI run of {@code POST /agents/{agentId}}: which agent and thread it belongs to, and the
 * user message that started it (the thread's transcript shows it with the client's own id).
 *
 * <p>Most turns start their own run ({@code baseRunId} equals {@code runId}, {@code startSeq} 0). A
 * continuation — the input that answered the interrupts that ended the thread's previous AG-UI run
 * — starts none: it streams its base run's log after {@code startSeq}, the sequence of the {@code
 * interrupt.requested} chunk that ended the previous AG-UI run.
 */
public record AgentTurn(
        String tenant,
        String runId,
        String agentId,
        String threadId,
        String userMessageId,
        String userText,
        Instant createdAt,
        String baseRunId,
        long startSeq) {

    /** A turn that starts its own run. */
    public AgentTurn(
            String tenant,
            String runId,
            String agentId,
            String threadId,
            String userMessageId,
            String userText,
            Instant createdAt) {
        this(tenant, runId, agentId, threadId, userMessageId, userText, createdAt, runId, 0);
    }

    /** Whether this turn continues another turn's run instead of starting its own. */
    public boolean continuation() {
        return !baseRunId.equals(runId);
    }
}
