package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Strict reading of the small JSON bodies of the sandbox endpoints (exec, processes, mkdir, move).
 * Each rule answers {@code 400 invalid-request} naming the field:
 *
 * <ul>
 *   <li>the body is a JSON object and has only the endpoint's members (a misspelt {@code timeoutMS}
 *       must not silently mean "no timeout");
 *   <li>a string member is a JSON string (no number coerced to text) without NUL, which no command
 *       line, path or environment can carry;
 *   <li>a number member is an integer in its range (no silent truncation of {@code 1.5} or
 *       wrap-around of {@code 2^64}).
 * </ul>
 *
 * {@code null} members count as absent.
 */
final class JsonBodies {

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private JsonBodies() {}

    static JsonObject object(JsonValue body, List<String> members) {
        if (!(body instanceof JsonObject o)) {
            throw invalid("body", "must be a JSON object");
        }
        for (String k : o.keySet()) {
            if (!members.contains(k)) {
                throw invalid(
                        k, "is not a known field (known: " + String.join(", ", members) + ")");
            }
        }
        return o;
    }

    static Optional<String> optionalString(JsonObject o, String field) {
        JsonValue v = o.get(field);
        if (v == null || v == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(v instanceof JsonString s)) {
            throw invalid(field, "must be a string");
        }
        return Optional.of(noNul(field, s.getString()));
    }

    static String requiredString(JsonObject o, String field) {
        return optionalString(o, field)
                .filter(s -> !s.isBlank())
                .orElseThrow(() -> invalid(field, "is required"));
    }

    /** An integer member within {@code [min, max]}. */
    static Optional<Long> optionalLong(JsonObject o, String field, long min, long max) {
        JsonValue v = o.get(field);
        if (v == null || v == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(v instanceof JsonNumber n) || !n.isIntegral()) {
            throw invalid(field, "must be an integer");
        }
        // Compared as BigDecimal: 1e400 is integral too, and a long conversion would wrap.
        BigDecimal d = n.bigDecimalValue();
        if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw invalid(field, "must be between " + min + " and " + max);
        }
        return Optional.of(d.longValueExact());
    }

    /** A map of environment variables: names are shell names, values strings without NUL. */
    static Map<String, String> env(JsonObject o, String field) {
        JsonValue v = o.get(field);
        if (v == null || v == JsonValue.NULL) {
            return Map.of();
        }
        if (!(v instanceof JsonObject e)) {
            throw invalid(field, "must be an object of strings");
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> entry : e.entrySet()) {
            if (!ENV_NAME.matcher(entry.getKey()).matches()) {
                throw invalid(field, "names must match [A-Za-z_][A-Za-z0-9_]*");
            }
            if (!(entry.getValue() instanceof JsonString s)) {
                throw invalid(field + "." + entry.getKey(), "must be a string");
            }
            env.put(entry.getKey(), noNul(field + "." + entry.getKey(), s.getString()));
        }
        return env;
    }

    /**
     * A patch of environment variables: names are shell names, values strings without NUL or {@code
     * null} (removes the variable, returned as an empty Optional).
     */
    static Map<String, Optional<String>> envPatch(JsonObject o, String field) {
        JsonValue v = o.get(field);
        if (v == null || v == JsonValue.NULL) {
            return Map.of();
        }
        if (!(v instanceof JsonObject e)) {
            throw invalid(field, "must be an object of strings or nulls");
        }
        Map<String, Optional<String>> env = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> entry : e.entrySet()) {
            if (!ENV_NAME.matcher(entry.getKey()).matches()) {
                throw invalid(field, "names must match [A-Za-z_][A-Za-z0-9_]*");
            }
            if (entry.getValue() == JsonValue.NULL) {
                env.put(entry.getKey(), Optional.empty());
            } else if (entry.getValue() instanceof JsonString s) {
                env.put(
                        entry.getKey(),
                        Optional.of(noNul(field + "." + entry.getKey(), s.getString())));
            } else {
                throw invalid(field + "." + entry.getKey(), "must be a string or null");
            }
        }
        return env;
    }

    static String noNul(String field, String value) {
        if (value.indexOf('\0') >= 0) {
            throw invalid(field, "must not contain NUL");
        }
        return value;
    }

    static ProblemException invalid(String field, String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }
}
