package dev.agentbox.sandbox.store;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The names of a sandbox's secrets, by form: {@code brokered} ones the sandbox holds a placeholder
 * for, {@code plain} ones it holds. Names only, never a value or a placeholder; each list sorted, a
 * name in one list at most. Stored with the sandbox record ({@code SECRET_NAMES}).
 */
public record SecretNames(List<String> brokered, List<String> plain) {

    public static final SecretNames NONE = new SecretNames(List.of(), List.of());

    public SecretNames {
        TreeSet<String> b = new TreeSet<>(brokered);
        TreeSet<String> p = new TreeSet<>(plain);
        p.removeAll(b);
        brokered = List.copyOf(b);
        plain = List.copyOf(p);
    }

    public static SecretNames of(Collection<String> brokered, Collection<String> plain) {
        return new SecretNames(List.copyOf(brokered), List.copyOf(plain));
    }

    public boolean isEmpty() {
        return brokered.isEmpty() && plain.isEmpty();
    }

    /** The stored form; null when empty. */
    String json() {
        if (isEmpty()) {
            return null;
        }
        return Json.createObjectBuilder()
                .add("brokered", array(brokered))
                .add("plain", array(plain))
                .build()
                .toString();
    }

    /** Reads the stored form; null or unreadable is {@link #NONE}. */
    static SecretNames parse(String json) {
        if (json == null || json.isBlank()) {
            return NONE;
        }
        try (var r = Json.createReader(new StringReader(json))) {
            JsonObject o = r.readObject();
            return new SecretNames(names(o.get("brokered")), names(o.get("plain")));
        } catch (RuntimeException e) {
            return NONE;
        }
    }

    private static List<String> names(jakarta.json.JsonValue v) {
        return v instanceof JsonArray a
                ? a.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList()
                : List.of();
    }

    private static JsonArrayBuilder array(List<String> names) {
        JsonArrayBuilder a = Json.createArrayBuilder();
        names.forEach(a::add);
        return a;
    }
}
