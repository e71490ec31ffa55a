package dev.agentbox.api;

import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/** Builds RFC 9457 problem documents in agentbox's shape. */
public final class Problems {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_BASE = "https://agentbox.dev/problems/";

    private static final Map<String, String> TITLES = Map.ofEntries(
            Map.entry("invalid-request", "Invalid request"),
            Map.entry("payload-too-large", "Payload too large"),
            Map.entry("unauthorized", "Unauthorized"),
            Map.entry("forbidden", "Forbidden"),
            Map.entry("not-found", "Not found"),
            Map.entry("method-not-allowed", "Method not allowed"),
            Map.entry("not-acceptable", "Not acceptable"),
            Map.entry("unsupported-media-type", "Unsupported media type"),
            Map.entry("run-exists", "Run already exists"),
            Map.entry("run-id-required", "Run id required"),
            Map.entry("unsupported-capability", "Unsupported capability"),
            Map.entry("path-outside-sandbox", "Path outside sandbox"),
            Map.entry("provider-unavailable", "Provider unavailable"),
            Map.entry("setup-failed", "Workspace setup failed"),
            Map.entry("run-terminal", "Run has ended"),
            Map.entry("journal-timeout", "Journal not found in time"),
            Map.entry("replay-diverged", "Replay diverged"),
            Map.entry("quota-exceeded", "Quota exceeded"),
            Map.entry("internal-error", "Internal server error"));

    private Problems() {
    }

    /** The problem code for a bare HTTP status, for errors raised by the container itself. */
    public static String codeFor(int status) {
        return switch (status) {
            case 400 -> "invalid-request";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not-found";
            case 405 -> "method-not-allowed";
            case 406 -> "not-acceptable";
            case 413 -> "payload-too-large";
            case 415 -> "unsupported-media-type";
            case 503 -> "provider-unavailable";
            default -> status >= 500 ? "internal-error" : "invalid-request";
        };
    }

    public static String json(int status, String code, String detail, Map<String, Object> extensions) {
        JsonObjectBuilder b = Json.createObjectBuilder()
                .add("type", TYPE_BASE + code)
                .add("title", TITLES.getOrDefault(code, code))
                .add("status", status)
                .add("detail", detail == null ? TITLES.getOrDefault(code, code) : detail)
                .add("code", code);
        extensions.forEach((k, v) -> {
            if (v instanceof Double || v instanceof Float) {
                b.add(k, Json.createValue(((Number) v).doubleValue()));
            } else if (v instanceof Number n) {
                b.add(k, Json.createValue(n.longValue()));
            } else if (v != null) {
                b.add(k, v.toString());
            }
        });
        return b.build().toString();
    }

    public static Response response(int status, String code, String detail, Map<String, Object> extensions) {
        return builder(status, code, detail, extensions).build();
    }

    public static Response.ResponseBuilder builder(int status, String code, String detail, Map<String, Object> extensions) {
        return Response.status(status)
                .type(MEDIA_TYPE)
                .entity(json(status, code, detail, extensions));
    }

    public static Response response(ProblemException e) {
        return response(e.status(), e.code(), e.detail(), e.extensions());
    }
}
