package dev.agentbox.agent.store;

import java.time.Instant;

/**
 * One run started through {@code POST /agents/{agentId}}: which agent and thread it belongs to, and
 * the user message that started it (the thread's transcript shows it with the client's own id).
 */
public record AgentTurn(
        String tenant,
        String runId,
        String agentId,
        String threadId,
        String userMessageId,
        String userText,
        Instant createdAt) {}
