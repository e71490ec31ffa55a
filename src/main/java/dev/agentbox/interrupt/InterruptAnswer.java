package dev.agentbox.interrupt;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.Map;
import java.util.Optional;

/**
 * A validated answer body: {@code {"status":"resolved|cancelled","payload?":{…}}}. An approval's
 * {@code resolved} payload must be {@code {"approved":true|false,"arguments?":{…}}} ({@link
 * #requireFits}), a client tool's {@code {"result":…}} or {@code {"error":"…"}}; a bad body is a
 * {@code 400 invalid-request} naming the field.
 */
public record InterruptAnswer(InterruptStatus status, Optional<JsonObject> payload) {

    public static InterruptAnswer parse(JsonValue body) {
        if (!(body instanceof JsonObject o)) {
            throw invalid("body", "must be a JSON object {\"status\",\"payload?\"}");
        }
        for (String k : o.keySet()) {
            if (!k.equals("status") && !k.equals("payload")) {
                throw invalid(k, "is not a known field");
            }
        }
        InterruptStatus status =
                o.get("status") instanceof JsonString s
                        ? InterruptStatus.of(s.getString())
                                .filter(
                                        x ->
                                                x == InterruptStatus.RESOLVED
                                                        || x == InterruptStatus.CANCELLED)
                                .orElse(null)
                        : null;
        if (status == null) {
            throw invalid("status", "must be resolved or cancelled");
        }
        JsonValue p = o.get("payload");
        if (p == null || p == JsonValue.NULL) {
            return new InterruptAnswer(status, Optional.empty());
        }
        if (!(p instanceof JsonObject payload)) {
            throw invalid("payload", "must be a JSON object");
        }
        return new InterruptAnswer(status, Optional.of(payload));
    }

    /** Refuses a {@code resolved} approval whose payload does not say whether it is approved. */
    public void requireFits(Interrupt interrupt) {
        if (status == InterruptStatus.RESOLVED
                && interrupt.reason().equals(ClientToolWait.REASON)) {
            JsonObject p =
                    payload.orElseThrow(
                            () ->
                                    invalid(
                                            "payload",
                                            "is required to resolve a client tool call:"
                                                    + " {\"result\":…} or {\"error\":\"…\"}"));
            if (!p.containsKey("result") && !(p.get("error") instanceof JsonString)) {
                throw invalid("payload", "must be {\"result\":…} or {\"error\":\"…\"}");
            }
            return;
        }
        if (status != InterruptStatus.RESOLVED || !interrupt.reason().equals(ApprovalGate.REASON)) {
            return;
        }
        JsonObject p =
                payload.orElseThrow(
                        () ->
                                invalid(
                                        "payload",
                                        "is required to resolve an approval:"
                                                + " {\"approved\":true|false,\"arguments?\":{…}}"));
        JsonValue approved = p.get("approved");
        if (approved != JsonValue.TRUE && approved != JsonValue.FALSE) {
            throw invalid("payload.approved", "must be true or false");
        }
        JsonValue args = p.get("arguments");
        if (args != null && !(args instanceof JsonObject)) {
            throw invalid("payload.arguments", "must be a JSON object (the edited arguments)");
        }
    }

    private static ProblemException invalid(String field, String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }
}
