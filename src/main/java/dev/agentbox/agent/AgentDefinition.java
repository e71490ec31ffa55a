package dev.agentbox.agent;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;

/** A stored agent definition of one tenant, as {@code GET /agents/{agentId}} shows it. */
public record AgentDefinition(
        String agentId, AgentTemplate template, Instant createdAt, Instant updatedAt) {

    /** {@code {"agentId", …the definition's fields…, "createdAt", "updatedAt"}}. */
    public JsonObject toJson() {
        JsonObjectBuilder b = Json.createObjectBuilder().add("agentId", agentId);
        template.toJson().forEach(b::add);
        return b.add("createdAt", createdAt.toString())
                .add("updatedAt", updatedAt.toString())
                .build();
    }
}
