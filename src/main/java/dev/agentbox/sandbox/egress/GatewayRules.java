package dev.agentbox.sandbox.egress;

import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Renders what one sandbox may reach as the egress gateway's two files (docs/egress.md):
 *
 * <ul>
 *   <li>{@code <address>.rules}, read per request by the gateway's decision helper: a header line
 *       naming the sandbox, then one {@code deny|allow host|sub|ip|cidr <value> <ports>} line per
 *       rule, the caller's deny rules first, then the caller's allow rules, then the operator's
 *       always-allow list. The helper refuses what any deny line covers (the CONNECT name, the
 *       Host, or the TLS SNI), so deny wins over every allow.
 *   <li>{@code <address>.dns}: the names and {@code *.domain}s the gateway's DNS may answer.
 * </ul>
 *
 * Only values the entry parser produced are written (lower-case names, digits, dots, hyphens,
 * colons, slashes); anything else is refused here too, so no rule can add a line of its own.
 */
public final class GatewayRules {

    /** The start of every rules file's first line; the owner check on release reads it. */
    public static final String HEADER = "# agentbox sandbox ";

    private static final Pattern SAFE_VALUE = Pattern.compile("[a-z0-9.:/-]+");
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9_.-]+");

    private GatewayRules() {}

    /** The two files of one sandbox. */
    public record Files(String rules, String dns) {}

    /**
     * The files for sandbox {@code sandbox} (its container name) whose rules are {@code policy},
     * plus the operator's {@code alwaysAllow}.
     */
    public static Files render(String sandbox, EgressPolicy policy, List<EgressRule> alwaysAllow) {
        if (!SAFE_NAME.matcher(sandbox).matches()) {
            throw new IllegalArgumentException("unsafe sandbox name: " + sandbox);
        }
        StringBuilder out = new StringBuilder(HEADER).append(sandbox).append('\n');
        policy.deny().forEach(r -> line(out, "deny", r));
        List<EgressRule> allow = new ArrayList<>(policy.allow());
        allow.addAll(alwaysAllow);
        Set<String> dns = new LinkedHashSet<>();
        for (EgressRule r : allow) {
            line(out, "allow", r);
            switch (r.kind()) {
                case HOST -> dns.add(r.value());
                case SUBDOMAINS -> dns.add("*." + r.value());
                default -> {
                    // an address needs no DNS
                }
            }
        }
        StringBuilder names = new StringBuilder();
        dns.forEach(d -> names.append(d).append('\n'));
        return new Files(out.toString(), names.toString());
    }

    /**
     * The brokered secrets of one sandbox as its gateway's {@code agentbox-egress secrets} takes
     * them: one {@code <placeholder> <host,host> <base64 value> <NAME>} line each, the value {@code
     * -} for a secret known by name only ({@code namesOnly}: restored by a server that never held
     * its value, so that the gateway refuses its placeholder naming the variable) and the name
     * {@code -} where unknown. A names-only entry's hosts are {@code *}: no server here can say
     * them, and the placeholder is refused wherever it is sent.
     */
    public static String secretsTransfer(Map<String, BrokeredSecret> byPlaceholder) {
        return secretsTransfer(byPlaceholder, Map.of());
    }

    /** {@link #secretsTransfer(Map)} plus names-only entries, placeholder to variable. */
    public static String secretsTransfer(
            Map<String, BrokeredSecret> byPlaceholder, Map<String, String> namesOnly) {
        StringBuilder lines = new StringBuilder();
        byPlaceholder.forEach(
                (placeholder, secret) ->
                        lines.append(placeholder)
                                .append(' ')
                                .append(String.join(",", secret.hosts()))
                                .append(' ')
                                .append(
                                        Base64.getEncoder()
                                                .encodeToString(
                                                        secret.value()
                                                                .getBytes(StandardCharsets.UTF_8)))
                                .append(' ')
                                .append(safeName(secret.name()))
                                .append('\n'));
        namesOnly.forEach(
                (placeholder, name) -> {
                    if (!byPlaceholder.containsKey(placeholder)
                            && PLACEHOLDER.matcher(placeholder).matches()) {
                        lines.append(placeholder)
                                .append(" * - ")
                                .append(safeName(name))
                                .append('\n');
                    }
                });
        return lines.toString().strip();
    }

    private static final java.util.regex.Pattern PLACEHOLDER =
            java.util.regex.Pattern.compile("agentbox-brokered-[0-9a-f]{40}");
    private static final java.util.regex.Pattern NAME =
            java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    private static String safeName(String name) {
        return name != null && NAME.matcher(name).matches() ? name : "-";
    }

    /** The file name stem of a sandbox's files: its address, safe as a file name. */
    public static String stem(String address) {
        if (!SAFE_VALUE.matcher(address).matches() || address.contains("/")) {
            throw new IllegalArgumentException("unsafe address: " + address);
        }
        return address.replace(':', '_');
    }

    private static void line(StringBuilder out, String decision, EgressRule r) {
        if (!SAFE_VALUE.matcher(r.value()).matches()) {
            throw new IllegalArgumentException("unsafe egress rule: " + r.text());
        }
        String kind =
                switch (r.kind()) {
                    case HOST -> "host";
                    case SUBDOMAINS -> "sub";
                    case IP -> "ip";
                    case CIDR -> "cidr";
                };
        String ports = r.port().isPresent() ? Integer.toString(r.port().getAsInt()) : "80,443";
        out.append(decision).append(' ').append(kind).append(' ').append(r.value());
        out.append(' ').append(ports).append('\n');
    }
}
