package dev.agentbox.sandbox;

import static dev.agentbox.sandbox.SandboxSpecParser.invalid;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.EgressRule;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a {@code secrets} object wherever one arrives ({@code workspace.secrets} of an ensure,
 * {@code forwardedProps.agentbox.secrets} of an AG-UI input) into {@link GivenSecrets}: a string is
 * a secret the sandbox holds, {@code {"value","brokerHosts"}} ({@link BrokeredSecretBody}) one it
 * never holds. Also the broker hosts of {@code brokeredSecrets} and of a secret set's {@code
 * .broker-hosts} file: exact host names, each once. Whether the sandbox's policy lets it reach a
 * host is {@link SandboxSpecParser}'s.
 */
public final class SecretEntries {

    /** A shell variable name: what {@code env} and {@code secrets} keys must be. */
    public static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** The most hosts one brokered secret may name. */
    public static final int MAX_HOSTS = BrokeredSecretBody.MAX_HOSTS;

    private SecretEntries() {}

    /**
     * The secrets of {@code value}, the member {@code field}; {@code null} is none. A name that is
     * no shell variable is refused naming {@code field}, a value of another shape naming {@code
     * field.NAME}; a value is never echoed.
     */
    public static GivenSecrets read(JsonObject value, String field) {
        if (value == null) {
            return GivenSecrets.NONE;
        }
        Map<String, String> plain = new LinkedHashMap<>();
        Map<String, BrokeredSecret> brokered = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : value.entrySet()) {
            if (!ENV_NAME.matcher(e.getKey()).matches()) {
                throw invalid(field, "has an invalid variable name \"" + e.getKey() + "\"");
            }
            String at = field + "." + e.getKey();
            if (e.getValue() instanceof JsonObject o) {
                BrokeredSecretBody b = JsonMembers.of(o, at, BrokeredSecretBody.class).finish();
                brokered.put(
                        e.getKey(),
                        new BrokeredSecret(b.value(), hosts(b.brokerHosts(), at + ".brokerHosts")));
            } else if (e.getValue() instanceof JsonString s) {
                if (s.getString().indexOf('\0') >= 0) {
                    throw invalid(at, "must not contain NUL");
                }
                plain.put(e.getKey(), s.getString());
            } else {
                throw invalid(at, "must be a string or {\"value\",\"brokerHosts\"}");
            }
        }
        return new GivenSecrets(plain, brokered);
    }

    /**
     * Broker hosts, the elements of {@code list} (the field {@code field}, each {@code field[i]}):
     * exact names, each once, at most {@value #MAX_HOSTS}, at least one.
     */
    public static List<String> hosts(JsonArray list, String field) {
        if (list.isEmpty()) {
            throw invalid(field, BrokeredSecretBody.AT_LEAST_ONE);
        }
        if (list.size() > MAX_HOSTS) {
            throw invalid(field, "names more than " + MAX_HOSTS + " hosts");
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String at = field + "[" + i + "]";
            if (!(list.get(i) instanceof JsonString js)) {
                throw invalid(at, "must be a host name");
            }
            String name = host(js.getString(), at);
            if (names.contains(name)) {
                throw invalid(at, "repeats " + name);
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    /** One broker host: an exact host name, no port, no {@code *.}, no IP literal. */
    public static String host(String text, String field) {
        EgressRule r = EgressEntries.parse(text, field, false);
        if (r.kind() != EgressRule.Kind.HOST || r.port().isPresent()) {
            throw invalid(field, "must be one exact host name, without a port or *.");
        }
        return r.value();
    }
}
