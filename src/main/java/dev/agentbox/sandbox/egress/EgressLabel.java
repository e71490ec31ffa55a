package dev.agentbox.sandbox.egress;

import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * An egress sandbox's rules as the value of its {@code dev.agentbox.egress} label (a Docker
 * container's) or annotation (a pod's), so that what is made from the sandbox alone gets the same
 * policy as its source: a fork, or its rules written again into a gateway that lost them.
 *
 * <p>The rules are written as their parts ({@code {"kind":"HOST","value":"api.anthropic.com",
 * "port":8443}}), not as entries to parse again: they were checked when the source was ensured, and
 * the provider must reproduce them, not judge them by today's settings.
 */
public final class EgressLabel {

    private EgressLabel() {}

    public static String of(EgressPolicy policy) {
        return Json.createObjectBuilder()
                .add("allow", rules(policy.allow()))
                .add("deny", rules(policy.deny()))
                .build()
                .toString();
    }

    /**
     * The policy a label holds.
     *
     * @throws IllegalArgumentException when it is not a label {@link #of} wrote
     */
    public static EgressPolicy parse(String label) {
        try {
            JsonObject o = Json.createReader(new StringReader(label)).readObject();
            return new EgressPolicy(rules(o, "allow"), rules(o, "deny"));
        } catch (JsonException | ClassCastException e) {
            throw new IllegalArgumentException("not an egress label", e);
        }
    }

    private static JsonArrayBuilder rules(List<EgressRule> rules) {
        JsonArrayBuilder a = Json.createArrayBuilder();
        for (EgressRule r : rules) {
            JsonObjectBuilder b =
                    Json.createObjectBuilder().add("kind", r.kind().name()).add("value", r.value());
            r.port().ifPresent(p -> b.add("port", p));
            a.add(b);
        }
        return a;
    }

    private static List<EgressRule> rules(JsonObject label, String name) {
        JsonArray a = label.getJsonArray(name);
        if (a == null) {
            throw new IllegalArgumentException("an egress label without " + name);
        }
        List<EgressRule> rules = new ArrayList<>();
        for (JsonValue v : a) {
            JsonObject r = v.asJsonObject();
            if (!r.containsKey("kind") || !r.containsKey("value")) {
                throw new IllegalArgumentException("an egress label's rule without kind or value");
            }
            rules.add(
                    new EgressRule(
                            EgressRule.Kind.valueOf(r.getString("kind")),
                            r.getString("value"),
                            r.containsKey("port")
                                    ? OptionalInt.of(r.getInt("port"))
                                    : OptionalInt.empty()));
        }
        return rules;
    }
}
