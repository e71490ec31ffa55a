package dev.agentbox.platform.body;

import dev.agentbox.problem.ProblemException;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.validation.ConstraintViolation;
import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Reads a JSON object into a record one member at a time, in the order of the record's components:
 * each member's JSON shape ({@link JsonShape}), then JSON-B binds it, then Bean Validation checks
 * the component's constraints, before the next member is looked at. The reader in between ({@link
 * #through}) may apply its own rules — the server's configuration, other members — so that a body
 * with several faults is always answered with the one a reading from top to bottom meets first.
 *
 * <p>{@link JsonBody#read} instead checks the whole shape, then every constraint; use this where a
 * body's answers were fixed by such a reading. Of several violations on one member the first
 * declared on the component is named (then by message). Unknown members are refused as {@code
 * "<field> is not a known field"}, naming none of the known ones.
 *
 * <p>Invariant: a member's value is read once, and only after every earlier member was accepted;
 * {@link #finish} returns a record whose every component passed its constraints.
 */
public final class JsonMembers<T extends Record> {

    private final JsonObject object;
    private final String at;
    private final Class<T> type;
    private final RecordComponent[] components;
    private final Object[] values;
    private int next;

    private JsonMembers(JsonObject object, String at, Class<T> type) {
        this.object = object;
        this.at = at;
        this.type = type;
        this.components = type.getRecordComponents();
        this.values = new Object[components.length];
    }

    /**
     * The members of {@code value}, the object named {@code at} ({@code ""}: the body), which must
     * have only members of {@code type}.
     */
    public static <T extends Record> JsonMembers<T> of(JsonValue value, String at, Class<T> type) {
        return lenient(value, at, type).known();
    }

    /** As {@link #of}, but unknown members are left for {@link #known} (a later member's rule). */
    public static <T extends Record> JsonMembers<T> lenient(
            JsonValue value, String at, Class<T> type) {
        if (!(value instanceof JsonObject o)) {
            throw ProblemException.invalidField(
                    at.isEmpty() ? "body" : at, "must be a JSON object");
        }
        return new JsonMembers<>(o, at, type);
    }

    /** Refuses the first member, in the object's order, that is not a component of the record. */
    public JsonMembers<T> known() {
        List<String> names = Arrays.stream(components).map(RecordComponent::getName).toList();
        for (String key : object.keySet()) {
            if (!names.contains(key)) {
                throw ProblemException.invalidField(field(key), "is not a known field");
            }
        }
        return this;
    }

    /**
     * Reads every member not read yet up to {@code name}, and returns {@code name}'s value ({@code
     * null} when absent or {@code null}).
     */
    @SuppressWarnings("unchecked")
    public <V> V through(String name) {
        int index = index(name);
        while (next <= index) {
            values[next] = read(components[next]);
            next++;
        }
        return (V) values[index];
    }

    /** Reads the remaining members and makes the record. */
    public T finish() {
        if (components.length > 0) {
            through(components[components.length - 1].getName());
        }
        try {
            Class<?>[] types =
                    Arrays.stream(components).map(RecordComponent::getType).toArray(Class[]::new);
            return type.getDeclaredConstructor(types).newInstance(values);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot make " + type.getName(), e);
        }
    }

    private Object read(RecordComponent c) {
        JsonValue v = object.get(c.getName());
        Object value = null;
        if (v != null && v != JsonValue.NULL) {
            JsonShape.member(v, c, field(c.getName()));
            value = bind(v, c);
        }
        Set<ConstraintViolation<T>> violations =
                JsonBody.Holder.VALIDATOR.validateValue(type, c.getName(), value);
        if (!violations.isEmpty()) {
            ConstraintViolation<T> first =
                    violations.stream()
                            .min(
                                    Comparator.<ConstraintViolation<T>>comparingInt(
                                                    x -> declared(x, c))
                                            .thenComparing(ConstraintViolation::getMessage))
                            .orElseThrow();
            throw ProblemException.invalidField(
                    field(Violations.field(first.getPropertyPath())), first.getMessage());
        }
        return value;
    }

    /** JSON-P's own types as they are; anything else through JSON-B. */
    private static Object bind(JsonValue v, RecordComponent c) {
        if (JsonValue.class.isAssignableFrom(c.getType())) {
            return v;
        }
        return JsonBody.Holder.JSONB.fromJson(v.toString(), c.getGenericType());
    }

    /**
     * Where the violated constraint is declared on {@code c}, repeated ones unfolded. The record's
     * field holds them: a constraint is not a record component annotation (its targets exclude
     * that), and the class file keeps the order of the source.
     */
    private int declared(ConstraintViolation<?> v, RecordComponent c) {
        Annotation violated = v.getConstraintDescriptor().getAnnotation();
        Annotation[] annotations;
        try {
            annotations = type.getDeclaredField(c.getName()).getAnnotations();
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(e);
        }
        int i = 0;
        for (Annotation a : annotations) {
            for (Annotation one : unfold(a)) {
                if (one.equals(violated)) {
                    return i;
                }
                i++;
            }
        }
        return Integer.MAX_VALUE;
    }

    /** The annotations a repeatable annotation's container holds, else {@code a} alone. */
    private static List<Annotation> unfold(Annotation a) {
        try {
            Method value = a.annotationType().getMethod("value");
            if (value.getReturnType().isArray()
                    && Annotation.class.isAssignableFrom(
                            value.getReturnType().getComponentType())) {
                return Arrays.asList((Annotation[]) value.invoke(a));
            }
        } catch (NoSuchMethodException e) {
            // Not a container.
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        return List.of(a);
    }

    private int index(String name) {
        for (int i = 0; i < components.length; i++) {
            if (components[i].getName().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(type.getSimpleName() + " has no member " + name);
    }

    private String field(String member) {
        return at.isEmpty() ? member : at + "." + member;
    }
}
