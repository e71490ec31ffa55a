package dev.agentbox.tool;

import jakarta.json.JsonObject;
import java.util.Optional;

/**
 * A gate's answer to a tool call.
 *
 * @param allowed whether the call may run
 * @param arguments arguments a person edited, which replace the agent's; empty to keep them
 * @param reason why, for a refusal the agent is told about (empty when allowed)
 */
public record GateDecision(boolean allowed, Optional<JsonObject> arguments, String reason) {

    public static GateDecision allow() {
        return new GateDecision(true, Optional.empty(), "");
    }

    public static GateDecision allowWith(JsonObject edited) {
        return new GateDecision(true, Optional.of(edited), "");
    }

    public static GateDecision deny(String reason) {
        return new GateDecision(false, Optional.empty(), reason);
    }
}
