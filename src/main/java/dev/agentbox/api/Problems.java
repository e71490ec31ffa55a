package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/**
 * Builds RFC 9457 problem documents in agentbox's shape: the edge where a {@link ProblemCode}
 * becomes HTTP.
 */
public final class Problems {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_BASE = "https://agentbox.dev/problems/";

    private Problems() {}

    public static String json(ProblemCode code, String detail, Map<String, Object> extensions) {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("type", TYPE_BASE + code.code())
                        .add("title", code.title())
                        .add("status", code.status())
                        .add("detail", detail == null ? code.title() : detail)
                        .add("code", code.code());
        extensions.forEach(
                (k, v) -> {
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

    public static Response response(
            ProblemCode code, String detail, Map<String, Object> extensions) {
        return builder(code, detail, extensions).build();
    }

    public static Response.ResponseBuilder builder(
            ProblemCode code, String detail, Map<String, Object> extensions) {
        return Response.status(code.status())
                .type(MEDIA_TYPE)
                .entity(json(code, detail, extensions));
    }

    public static Response response(ProblemException e) {
        return response(e.code(), e.detail(), e.extensions());
    }
}
