package dev.agentbox.tool;

import jakarta.json.JsonObject;
import java.util.Objects;

/**
 * One tool call an agent made, as a gate sees it.
 *
 * @param runId the run whose agent made the call
 * @param callKey stable for this call across servers and takeovers (for example the bridge session
 *     and the JSON-RPC request id), unique within the run
 * @param tool the tool's name as the agent called it
 * @param arguments the call's arguments (already checked against the tool's schema)
 */
public record ToolCall(String runId, String callKey, String tool, JsonObject arguments) {
    public ToolCall {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(callKey, "callKey");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(arguments, "arguments");
    }
}
