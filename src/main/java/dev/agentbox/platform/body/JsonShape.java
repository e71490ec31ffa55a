package dev.agentbox.platform.body;

import dev.agentbox.problem.ProblemException;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Checks that a JSON value has the shape of a record before JSON-B binds it, because JSON-B would
 * silently accept what a request body must refuse. Each refusal is a {@code 400 invalid-request}
 * naming the member's path ({@code policy.ports[2]}, {@code env.A}):
 *
 * <ul>
 *   <li>only the record's components are members: a misspelt {@code timeoutMS} must not silently
 *       mean "no timeout";
 *   <li>a {@code String} is a JSON string (no number coerced to text), a {@code Boolean} is {@code
 *       true} or {@code false};
 *   <li>a {@code Long} or {@code Integer} is an integral number within the type's range: no silent
 *       truncation of {@code 1.5}, no wrap-around of {@code 2^64} (compared as {@code BigDecimal},
 *       as a conversion to {@code long} would wrap);
 *   <li>maps are objects and lists are arrays, their values and elements checked the same way.
 * </ul>
 *
 * {@code null} passes everywhere: a null member counts as absent, and whether a null map value or
 * list element is allowed is for the record's constraints to say.
 */
final class JsonShape {

    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal INT_MIN = BigDecimal.valueOf(Integer.MIN_VALUE);
    private static final BigDecimal INT_MAX = BigDecimal.valueOf(Integer.MAX_VALUE);

    private JsonShape() {}

    /** Checks a whole body: a JSON object holding only the members of {@code type}. */
    static void check(JsonValue body, Class<? extends Record> type) {
        if (!(body instanceof JsonObject o)) {
            throw ProblemException.invalidField("body", "must be a JSON object");
        }
        record(o, type, "");
    }

    private static void record(JsonObject o, Class<?> type, String prefix) {
        RecordComponent[] components = type.getRecordComponents();
        List<String> names = Arrays.stream(components).map(RecordComponent::getName).toList();
        for (String key : o.keySet()) {
            if (!names.contains(key)) {
                throw ProblemException.invalidField(
                        prefix + key,
                        "is not a known field (known: " + String.join(", ", names) + ")");
            }
        }
        for (RecordComponent c : components) {
            JsonValue v = o.get(c.getName());
            if (v != null) {
                member(v, c, prefix + c.getName());
            }
        }
    }

    /** Checks the value of one member, {@code at}, against its record component. */
    static void member(JsonValue v, RecordComponent c, String at) {
        TypeMismatch m = c.getAnnotation(TypeMismatch.class);
        value(v, c.getGenericType(), at, m == null ? "" : m.value(), m == null ? "" : m.elements());
    }

    /**
     * Checks {@code v} against {@code type}; {@code message} (empty: the type's own) says what is
     * wrong, {@code elements} the same for the values of a map or the elements of a list.
     */
    private static void value(JsonValue v, Type type, String at, String message, String elements) {
        if (v == JsonValue.NULL) {
            return;
        }
        Class<?> raw = raw(type);
        // JSON-P's own types first: a JsonObject is a Map, a JsonArray a List.
        if (raw == JsonObject.class) {
            require(v instanceof JsonObject, at, message, "must be a JSON object");
        } else if (raw == JsonArray.class) {
            require(v instanceof JsonArray, at, message, "must be a JSON array");
        } else if (raw == String.class) {
            require(v instanceof JsonString, at, message, "must be a string");
        } else if (raw == Boolean.class || raw == boolean.class) {
            require(
                    v == JsonValue.TRUE || v == JsonValue.FALSE,
                    at,
                    message,
                    "must be true or false");
        } else if (raw == Long.class || raw == long.class) {
            integer(v, at, message, LONG_MIN, LONG_MAX);
        } else if (raw == Integer.class || raw == int.class) {
            integer(v, at, message, INT_MIN, INT_MAX);
        } else if (raw == Double.class || raw == double.class) {
            require(v instanceof JsonNumber, at, message, "must be a number");
        } else if (Map.class.isAssignableFrom(raw)) {
            require(v instanceof JsonObject, at, message, "must be a JSON object");
            Type valueType = argument(type, 1);
            for (Map.Entry<String, JsonValue> e : v.asJsonObject().entrySet()) {
                value(e.getValue(), valueType, at + "." + e.getKey(), elements, "");
            }
        } else if (List.class.isAssignableFrom(raw)) {
            require(v instanceof JsonArray, at, message, "must be a JSON array");
            Type elementType = argument(type, 0);
            JsonArray a = v.asJsonArray();
            for (int i = 0; i < a.size(); i++) {
                value(a.get(i), elementType, at + "[" + i + "]", elements, "");
            }
        } else if (raw.isRecord()) {
            require(v instanceof JsonObject, at, message, "must be a JSON object");
            record(v.asJsonObject(), raw, at + ".");
        } else if (raw != JsonValue.class) {
            throw new IllegalStateException("No JSON shape for " + type + " of " + at);
        }
    }

    private static void integer(
            JsonValue v, String at, String message, BigDecimal min, BigDecimal max) {
        require(v instanceof JsonNumber n && n.isIntegral(), at, message, "must be an integer");
        BigDecimal d = ((JsonNumber) v).bigDecimalValue();
        require(d.compareTo(min) >= 0 && d.compareTo(max) <= 0, at, message, "is out of range");
    }

    private static void require(boolean ok, String at, String message, String otherwise) {
        if (!ok) {
            throw ProblemException.invalidField(at, message.isEmpty() ? otherwise : message);
        }
    }

    private static Class<?> raw(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        throw new IllegalStateException("No JSON shape for " + type);
    }

    private static Type argument(Type type, int index) {
        if (type instanceof ParameterizedType p) {
            return p.getActualTypeArguments()[index];
        }
        throw new IllegalStateException("A raw " + type + " has no element type");
    }
}
