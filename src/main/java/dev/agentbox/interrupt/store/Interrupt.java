package dev.agentbox.interrupt.store;

import dev.agentbox.run.store.RunRef;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;
import java.util.Optional;

/**
 * A snapshot of one stored interrupt. {@code payload} and {@code answeredAt} are set exactly when
 * the status is no longer {@link InterruptStatus#PENDING} ({@code payload} only for an answer that
 * carried one).
 */
public record Interrupt(
        String id,
        RunRef run,
        String tenant,
        String runId,
        String callKey,
        String reason,
        Optional<String> toolCallId,
        String tool,
        JsonObject arguments,
        Instant createdAt,
        Instant expiresAt,
        InterruptStatus status,
        Optional<JsonObject> payload,
        Optional<Instant> answeredAt) {

    public boolean pending() {
        return status == InterruptStatus.PENDING;
    }

    /**
     * This interrupt as settled with {@code status} at {@code at}, without a payload: how a waiter
     * sees one past its expiry that no reaper has marked yet, or one whose row is gone.
     */
    public Interrupt settledAs(InterruptStatus status, Instant at) {
        return new Interrupt(
                id,
                run,
                tenant,
                runId,
                callKey,
                reason,
                toolCallId,
                tool,
                arguments,
                createdAt,
                expiresAt,
                status,
                Optional.empty(),
                Optional.of(at));
    }

    /**
     * The interrupt as the API and the {@code interrupt.requested} chunk show it: {@code
     * {"id","reason","toolCallId?","tool","arguments","expiresAt"}}.
     */
    public JsonObject toJson() {
        JsonObjectBuilder b = Json.createObjectBuilder().add("id", id).add("reason", reason);
        toolCallId.ifPresent(t -> b.add("toolCallId", t));
        return b.add("tool", tool)
                .add("arguments", arguments)
                .add("expiresAt", expiresAt.toString())
                .build();
    }
}
