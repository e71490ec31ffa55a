package dev.agentbox.sandbox.egress;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.EgressEntries;
import dev.agentbox.sandbox.EgressLimits;
import dev.agentbox.sandbox.spi.EgressRule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * The operator's settings of the egress gateway (MicroProfile Config keys in brackets).
 *
 * @param image [agentbox.egress.image] the gateway image, default agentbox/egress:1
 * @param alwaysAllow [agentbox.egress.always-allow] destinations every egress sandbox may reach,
 *     default the model API hosts of the CLI harnesses
 * @param resolve [agentbox.egress.resolve] {@code name=address} pairs the gateway uses before DNS
 *     (private registries, split-horizon DNS, tests); such names may resolve to private addresses,
 *     which are refused for every other name
 * @param upstreamCa [agentbox.egress.upstream-ca] a PEM file the gateway trusts for upstream TLS
 *     besides the system roots
 */
public record EgressSettings(
        String image,
        List<EgressRule> alwaysAllow,
        Map<String, String> resolve,
        Optional<Path> upstreamCa) {

    public static final String DEFAULT_IMAGE = "agentbox/egress:1";

    /** What {@code agentbox.egress.always-allow} defaults to. */
    public static final List<String> MODEL_API_HOSTS =
            List.of("api.anthropic.com", "api.openai.com");

    private static final Pattern ADDRESS = Pattern.compile("[0-9.]+|[0-9a-f:]+");

    public EgressSettings {
        alwaysAllow = List.copyOf(alwaysAllow);
        resolve = Map.copyOf(resolve);
        for (Map.Entry<String, String> e : resolve.entrySet()) {
            if (!isHostName(e.getKey()) || !ADDRESS.matcher(e.getValue()).matches()) {
                throw new IllegalArgumentException(
                        "agentbox.egress.resolve: not a name=address pair: "
                                + e.getKey()
                                + "="
                                + e.getValue());
            }
        }
    }

    /**
     * A pinned name is a host name by the rule of {@code policy.egress} entries ({@link
     * EgressEntries}): written as the gateway will match it (lower case, no trailing dot), not a
     * {@code *.domain}, an address, a port or {@code localhost}.
     */
    private static boolean isHostName(String name) {
        try {
            EgressRule r = EgressEntries.parse(name, "agentbox.egress.resolve", false);
            return r.kind() == EgressRule.Kind.HOST && r.port().isEmpty() && r.value().equals(name);
        } catch (ProblemException e) {
            return false;
        }
    }

    public static EgressSettings defaults() {
        return new EgressSettings(
                DEFAULT_IMAGE, EgressLimits.defaults().alwaysAllow(), Map.of(), Optional.empty());
    }

    public static EgressSettings fromConfig(Config config) {
        String image =
                config.getOptionalValue("agentbox.egress.image", String.class)
                        .orElse(DEFAULT_IMAGE);
        List<EgressRule> always = EgressLimits.fromConfig(config).alwaysAllow();
        Map<String, String> resolve = new LinkedHashMap<>();
        config.getOptionalValue("agentbox.egress.resolve", String.class)
                .map(EgressSettings::split)
                .orElse(List.of())
                .forEach(
                        pair -> {
                            int eq = pair.indexOf('=');
                            if (eq <= 0) {
                                throw new IllegalArgumentException(
                                        "agentbox.egress.resolve: not a name=address pair: "
                                                + pair);
                            }
                            resolve.put(
                                    pair.substring(0, eq).trim().toLowerCase(java.util.Locale.ROOT),
                                    pair.substring(eq + 1).trim());
                        });
        Optional<Path> ca =
                config.getOptionalValue("agentbox.egress.upstream-ca", String.class)
                        .filter(s -> !s.isBlank())
                        .map(Path::of);
        return new EgressSettings(image, always, resolve, ca);
    }

    public EgressSettings withResolve(Map<String, String> r) {
        return new EgressSettings(image, alwaysAllow, r, upstreamCa);
    }

    public EgressSettings withUpstreamCa(Path pem) {
        return new EgressSettings(image, alwaysAllow, resolve, Optional.of(pem));
    }

    public EgressSettings withAlwaysAllow(List<EgressRule> rules) {
        return new EgressSettings(image, rules, resolve, upstreamCa);
    }

    private static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    /** The gateway's hosts file: one {@code address name} line per pinned name. */
    public String hostsFile() {
        StringBuilder b = new StringBuilder();
        new java.util.TreeMap<>(resolve)
                .forEach((n, a) -> b.append(a).append(' ').append(n).append('\n'));
        return b.toString();
    }

    /**
     * The Squid ACL of pinned names (they alone may resolve to private addresses); a name that
     * cannot occur when none are pinned.
     */
    public String resolvedAcl() {
        List<String> names = new ArrayList<>(new java.util.TreeSet<>(resolve.keySet()));
        if (names.isEmpty()) {
            names.add("agentbox.invalid");
        }
        return "acl operator_resolved dstdomain -n " + String.join(" ", names) + "\n";
    }
}
