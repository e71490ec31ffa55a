package dev.agentbox.sandbox;

import static dev.agentbox.sandbox.SandboxSpecParser.invalid;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A run's rules for the form of its secrets, beyond the form each is given in (docs/api.md,
 * "Brokered secrets on every path"), from {@code brokeredSecrets} and {@code plainSecrets} of an
 * agent definition or {@code POST /runs}. Applied by {@link SandboxSpecParser#withBrokering}, in
 * this order of precedence:
 *
 * <ol>
 *   <li>a secret given as {@code {"value","brokerHosts"}} stays as given;
 *   <li>a name in {@code brokered} is brokered to those hosts, also when it is given as a string;
 *   <li>a name in {@code plain} stays a string;
 *   <li>a model key ({@link #MODEL_KEYS}) given as a string in an {@code egress} sandbox is
 *       brokered to its model host, where the policy allows it and {@code
 *       agentbox.egress.broker-model-keys} is on.
 * </ol>
 *
 * A name in both lists is refused ({@code 400}, {@code plainSecrets[i]}): one of the two would be
 * silently ignored. Holds names and hosts only, never a value: it is stored with a definition.
 */
public record SecretBrokering(Map<String, List<String>> brokered, List<String> plain) {

    public static final SecretBrokering NONE = new SecretBrokering(Map.of(), List.of());

    /** The most names each of the two members holds. */
    static final int MAX_NAMES = 100;

    /**
     * A CLI's model key and where it goes: its model API host, unless its base-URL variable names
     * another.
     */
    record ModelKey(String host, String baseUrlVariable) {}

    /** The model keys brokered by default, whatever the harness. */
    static final Map<String, ModelKey> MODEL_KEYS =
            Map.of(
                    "ANTHROPIC_API_KEY", new ModelKey("api.anthropic.com", "ANTHROPIC_BASE_URL"),
                    "OPENAI_API_KEY", new ModelKey("api.openai.com", "OPENAI_BASE_URL"),
                    "CODEX_API_KEY", new ModelKey("api.openai.com", "OPENAI_BASE_URL"),
                    "GEMINI_API_KEY",
                            new ModelKey(
                                    "generativelanguage.googleapis.com", "GOOGLE_GEMINI_BASE_URL"));

    public SecretBrokering {
        brokered = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(brokered));
        plain = List.copyOf(plain);
    }

    public boolean isEmpty() {
        return brokered.isEmpty() && plain.isEmpty();
    }

    /**
     * Reads {@code brokeredSecrets} ({@code {"NAME": ["host", …]}}) and {@code plainSecrets}
     * ({@code ["NAME", …]}); either may be {@code null}. A {@code 400} names the field.
     */
    public static SecretBrokering parse(JsonValue brokeredSecrets, JsonValue plainSecrets) {
        Map<String, List<String>> brokered = new LinkedHashMap<>();
        if (brokeredSecrets != null) {
            if (!(brokeredSecrets instanceof JsonObject o)) {
                throw invalid("brokeredSecrets", "must be an object of names to arrays of hosts");
            }
            if (o.size() > MAX_NAMES) {
                throw invalid("brokeredSecrets", "names more than " + MAX_NAMES + " secrets");
            }
            for (Map.Entry<String, JsonValue> e : o.entrySet()) {
                String at = "brokeredSecrets." + e.getKey();
                if (!SecretEntries.ENV_NAME.matcher(e.getKey()).matches()) {
                    throw invalid(
                            "brokeredSecrets",
                            "has an invalid variable name \"" + e.getKey() + "\"");
                }
                if (!(e.getValue() instanceof JsonArray hosts)) {
                    throw invalid(at, "must be an array of host names");
                }
                brokered.put(e.getKey(), SecretEntries.hosts(hosts, at));
            }
        }
        List<String> plain = new ArrayList<>();
        if (plainSecrets != null) {
            if (!(plainSecrets instanceof JsonArray a)) {
                throw invalid("plainSecrets", "must be an array of variable names");
            }
            if (a.size() > MAX_NAMES) {
                throw invalid("plainSecrets", "names more than " + MAX_NAMES + " secrets");
            }
            for (int i = 0; i < a.size(); i++) {
                String at = "plainSecrets[" + i + "]";
                if (!(a.get(i) instanceof JsonString s)
                        || !SecretEntries.ENV_NAME.matcher(s.getString()).matches()) {
                    throw invalid(at, "must be a variable name");
                }
                String name = s.getString();
                if (plain.contains(name)) {
                    throw invalid(at, "repeats " + name);
                }
                if (brokered.containsKey(name)) {
                    throw invalid(
                            at,
                            "names "
                                    + name
                                    + ", which brokeredSecrets brokers (a secret is either"
                                    + " brokered or plain)");
                }
                plain.add(name);
            }
        }
        return new SecretBrokering(brokered, plain);
    }

    /** Adds {@code brokeredSecrets} and {@code plainSecrets} to {@code b}, each when not empty. */
    public JsonObjectBuilder addTo(JsonObjectBuilder b) {
        if (!brokered.isEmpty()) {
            JsonObjectBuilder o = Json.createObjectBuilder();
            brokered.forEach((k, v) -> o.add(k, Json.createArrayBuilder(v)));
            b.add("brokeredSecrets", o);
        }
        if (!plain.isEmpty()) {
            JsonArrayBuilder a = Json.createArrayBuilder();
            plain.forEach(a::add);
            b.add("plainSecrets", a);
        }
        return b;
    }

    /**
     * Where the model key {@code name} goes by default: the host of its base-URL variable when one
     * is set ({@code secrets} before {@code env}; empty when that URL names no exact host), else
     * its model API host; empty for a name that is no model key.
     */
    static Optional<String> modelHost(
            String name, Map<String, String> env, Map<String, String> secrets) {
        ModelKey key = MODEL_KEYS.get(name);
        if (key == null) {
            return Optional.empty();
        }
        String url = secrets.getOrDefault(key.baseUrlVariable(), env.get(key.baseUrlVariable()));
        if (url == null || url.isBlank()) {
            return Optional.of(key.host());
        }
        try {
            String host = URI.create(url.strip()).getHost();
            return host == null
                    ? Optional.empty()
                    : Optional.of(SecretEntries.host(host, key.baseUrlVariable()));
        } catch (RuntimeException notAHostName) {
            // An IP literal, a malformed URL: nothing the gateway could broker to.
            return Optional.empty();
        }
    }
}
