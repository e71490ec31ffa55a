package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.BrokeredSecret;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Secrets as a caller or a secret set gives them, before a run's brokering rules apply: {@code
 * plain} ones the sandbox would hold, {@code brokered} ones it never holds. A name is in one map at
 * most. Lives in memory only: never stored, never logged ({@link #toString} names names only).
 */
public record GivenSecrets(Map<String, String> plain, Map<String, BrokeredSecret> brokered) {

    public static final GivenSecrets NONE = new GivenSecrets(Map.of(), Map.of());

    public GivenSecrets {
        plain = Map.copyOf(plain);
        brokered = Map.copyOf(brokered);
        for (String name : plain.keySet()) {
            if (brokered.containsKey(name)) {
                throw new IllegalArgumentException(name + " is both plain and brokered");
            }
        }
    }

    public boolean isEmpty() {
        return plain.isEmpty() && brokered.isEmpty();
    }

    /** These secrets with {@code over}'s on top: a name {@code over} gives takes its form too. */
    public GivenSecrets under(GivenSecrets over) {
        Map<String, String> p = new LinkedHashMap<>(plain);
        Map<String, BrokeredSecret> b = new LinkedHashMap<>(brokered);
        over.plain.forEach(
                (k, v) -> {
                    b.remove(k);
                    p.put(k, v);
                });
        over.brokered.forEach(
                (k, v) -> {
                    p.remove(k);
                    b.put(k, v);
                });
        return new GivenSecrets(p, b);
    }

    /**
     * The {@code workspace.secrets} member of an ensure body that gives these (in memory only, to
     * be read back by {@link SandboxSpecParser}).
     */
    public JsonObject toJson() {
        JsonObjectBuilder o = Json.createObjectBuilder();
        plain.forEach(o::add);
        brokered.forEach(
                (k, v) ->
                        o.add(
                                k,
                                Json.createObjectBuilder()
                                        .add("value", v.value())
                                        .add("brokerHosts", Json.createArrayBuilder(v.hosts()))));
        return o.build();
    }

    @Override
    public String toString() {
        return "GivenSecrets[plain=" + plain.keySet() + ", brokered=" + brokered.keySet() + "]";
    }
}
