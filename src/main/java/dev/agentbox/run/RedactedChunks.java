package dev.agentbox.run;

import dev.agentbox.platform.Redactor;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;

/**
 * Chunks with every string value passed through a {@link Redactor}, before they are stored or
 * streamed: a run's log lives in the database, where a secret value must never be.
 *
 * <ul>
 *   <li>Strings are redacted one by one (not the serialized JSON), so a value holding a quote or a
 *       backslash is found as it is, not in its escaped form.
 *   <li>Deterministic for one set of secrets: a successor that replays the journal with the same
 *       secrets file produces the same chunks, so alignment with the stored log holds. (Secrets
 *       re-supplied with other values while a run is detached can make a chunk that printed one
 *       differ on replay: the run then ends {@code replay-diverged}.)
 *   <li>A chunk without a secret is returned as the same instance.
 * </ul>
 */
final class RedactedChunks {

    private RedactedChunks() {}

    static List<JsonObject> of(Redactor redactor, List<JsonObject> chunks) {
        if (redactor.isEmpty()) {
            return chunks;
        }
        List<JsonObject> out = new ArrayList<>(chunks.size());
        for (JsonObject chunk : chunks) {
            out.add((JsonObject) redact(redactor, chunk));
        }
        return out;
    }

    private static JsonValue redact(Redactor redactor, JsonValue value) {
        switch (value.getValueType()) {
            case STRING -> {
                String s = ((JsonString) value).getString();
                String r = redactor.redact(s);
                return r.equals(s) ? value : Json.createValue(r);
            }
            case OBJECT -> {
                JsonObject o = value.asJsonObject();
                JsonObjectBuilder b = null;
                for (var e : o.entrySet()) {
                    JsonValue r = redact(redactor, e.getValue());
                    if (r != e.getValue()) {
                        b = b == null ? Json.createObjectBuilder(o) : b;
                        b.add(e.getKey(), r);
                    }
                }
                return b == null ? o : b.build();
            }
            case ARRAY -> {
                JsonArray a = value.asJsonArray();
                boolean changed = false;
                JsonArrayBuilder b = Json.createArrayBuilder();
                for (JsonValue v : a) {
                    JsonValue r = redact(redactor, v);
                    changed |= r != v;
                    b.add(r);
                }
                return changed ? b.build() : a;
            }
            default -> {
                return value;
            }
        }
    }
}
