package dev.agentbox.interrupt.store;

import dev.agentbox.run.store.RunRef;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link InterruptStore#open} records: one wait of one call of a run.
 *
 * @param callKey the call's key, unique within the run, 1..{@value #MAX_KEY} characters (longer
 *     keys are hashed by the caller)
 * @param reason why the call waits: {@code approval}, {@code client_tool_input}
 * @param toolCallId the AG-UI tool call id, when the call has one
 */
public record NewInterrupt(
        RunRef run,
        String tenant,
        String runId,
        String callKey,
        String reason,
        Optional<String> toolCallId,
        String tool,
        JsonObject arguments,
        Instant createdAt,
        Instant expiresAt) {

    public static final int MAX_KEY = 255;

    public NewInterrupt {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (callKey == null || callKey.isEmpty() || callKey.length() > MAX_KEY) {
            throw new IllegalArgumentException("callKey must be 1.." + MAX_KEY + " characters");
        }
    }
}
