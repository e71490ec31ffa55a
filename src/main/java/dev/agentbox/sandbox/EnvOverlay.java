package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.ProcessOptions;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The non-secret environment a caller set on a sandbox with {@code PATCH /sandboxes/{key}/env},
 * recorded with the sandbox ({@code SandboxInstance} column {@code ENV_JSON}) and applied by every
 * handle opened for it ({@link SecretsHandle}), on every server.
 *
 * <p>Layers, weakest first: the ensure's {@code workspace.env} (the sandbox's own environment),
 * this overlay, a command's own {@code env}, then the secrets (sourced last). A variable set here
 * to a value is passed in each command's environment; a variable removed here ({@code null} in the
 * PATCH) is {@code unset} at the start of each command — also when the ensure's {@code
 * workspace.env} set it — unless the command's own {@code env} sets it.
 *
 * <p>Recorded as a JSON object whose values are strings or {@code null} (removed). Never holds a
 * secret.
 */
public final class EnvOverlay {

    /** Shell variable names, as the ensure parser accepts them. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public static final EnvOverlay NONE = new EnvOverlay(Map.of());

    /** Name to value; an empty value means "removed". Sorted, so the JSON is stable. */
    private final Map<String, Optional<String>> vars;

    private EnvOverlay(Map<String, Optional<String>> vars) {
        this.vars = Collections.unmodifiableMap(new TreeMap<>(vars));
    }

    /** The overlay recorded as {@code json}; {@link #NONE} for null or blank. */
    public static EnvOverlay parse(String json) {
        if (json == null || json.isBlank()) {
            return NONE;
        }
        JsonObject o;
        try (var reader = Json.createReader(new StringReader(json))) {
            o = reader.readObject();
        }
        Map<String, Optional<String>> vars = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : o.entrySet()) {
            if (!NAME.matcher(e.getKey()).matches()) {
                continue; // never written by this class; a hand-edited row cannot inject a command
            }
            vars.put(
                    e.getKey(),
                    e.getValue() instanceof JsonString s
                            ? Optional.of(s.getString())
                            : Optional.empty());
        }
        return new EnvOverlay(vars);
    }

    /** The recorded form; null when there is nothing to record. */
    public String json() {
        if (vars.isEmpty()) {
            return null;
        }
        JsonObjectBuilder b = Json.createObjectBuilder();
        vars.forEach(
                (k, v) -> {
                    if (v.isPresent()) {
                        b.add(k, v.get());
                    } else {
                        b.addNull(k);
                    }
                });
        return b.build().toString();
    }

    /**
     * This overlay with {@code patch} applied: a value sets the variable, an empty value removes it
     * (for later commands, whoever set it).
     */
    public EnvOverlay with(Map<String, Optional<String>> patch) {
        Map<String, Optional<String>> next = new LinkedHashMap<>(vars);
        next.putAll(patch);
        return new EnvOverlay(next);
    }

    /**
     * This overlay laid over {@code base}: the base's variables, then this overlay's changes. A
     * sandbox taken from the warm pool was made without the ensure's {@code workspace.env}, so its
     * record carries that environment as the bottom of its overlay.
     */
    public EnvOverlay over(Map<String, String> base) {
        Map<String, Optional<String>> next = new LinkedHashMap<>();
        base.forEach((k, v) -> next.put(k, Optional.of(v)));
        next.putAll(vars);
        return new EnvOverlay(next);
    }

    /** The variables set to a value. */
    public Map<String, String> values() {
        Map<String, String> out = new LinkedHashMap<>();
        vars.forEach((k, v) -> v.ifPresent(value -> out.put(k, value)));
        return out;
    }

    public boolean isEmpty() {
        return vars.isEmpty();
    }

    /** {@code options} with this overlay's values under the command's own {@code env}. */
    ProcessOptions apply(ProcessOptions options) {
        if (vars.isEmpty()) {
            return options;
        }
        Map<String, String> env = new LinkedHashMap<>(values());
        env.putAll(options.env());
        return options.withEnv(env);
    }

    /**
     * The shell prefix that removes the removed variables a command does not set itself; empty when
     * there are none. Names are checked against {@link #NAME}, so they need no quoting.
     */
    String unsetPrefix(ProcessOptions options) {
        List<String> names = new ArrayList<>();
        vars.forEach(
                (k, v) -> {
                    if (v.isEmpty() && !options.env().containsKey(k)) {
                        names.add(k);
                    }
                });
        return names.isEmpty() ? "" : "unset " + String.join(" ", names) + "; ";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EnvOverlay other && vars.equals(other.vars);
    }

    @Override
    public int hashCode() {
        return vars.hashCode();
    }
}
