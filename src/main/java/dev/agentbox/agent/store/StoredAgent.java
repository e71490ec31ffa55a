package dev.agentbox.agent.store;

import java.time.Instant;

/** An agent definition as stored: its validated JSON form (never holding secrets) and its times. */
public record StoredAgent(
        String agentId, String definitionJson, Instant createdAt, Instant updatedAt) {}
