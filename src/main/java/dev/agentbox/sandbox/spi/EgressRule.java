package dev.agentbox.sandbox.spi;

import java.util.Locale;
import java.util.OptionalInt;

/**
 * One entry of an egress allow or deny list, already checked by the parser.
 *
 * <ul>
 *   <li>{@link Kind#HOST}: exactly this name ({@code api.anthropic.com}).
 *   <li>{@link Kind#SUBDOMAINS}: any name strictly below {@code value} ({@code *.npmjs.org} has
 *       value {@code npmjs.org}); never the apex itself.
 *   <li>{@link Kind#IP} / {@link Kind#CIDR}: an address or block, only where the operator allows IP
 *       literals ({@code agentbox.egress.allow-ip-literals}). The value is the canonical address
 *       ({@code 10.0.0.1}, {@code 2001:db8::1}) or network address and prefix length ({@code
 *       10.0.0.0/8}, {@code fd00::/8}); {@link #text()} writes IPv6 in brackets ({@code
 *       [2001:db8::1]}, {@code [fd00::]/8}).
 * </ul>
 *
 * An absent {@code port} means the web's two ports, 80 and 443. Names are lower case and carry no
 * trailing dot, so two spellings of one host are one rule and one key.
 */
public record EgressRule(Kind kind, String value, OptionalInt port) {

    public enum Kind {
        HOST,
        SUBDOMAINS,
        IP,
        CIDR
    }

    public EgressRule {
        if (kind == null || value == null || value.isEmpty()) {
            throw new IllegalArgumentException("an egress rule needs a kind and a value");
        }
        value = value.toLowerCase(Locale.ROOT);
        port = port == null ? OptionalInt.empty() : port;
    }

    public static EgressRule host(String name) {
        return new EgressRule(Kind.HOST, name, OptionalInt.empty());
    }

    /** The entry as a caller writes it: {@code *.npmjs.org}, {@code git.example.com:8443}. */
    public String text() {
        String host =
                switch (kind) {
                    case SUBDOMAINS -> "*." + value;
                    case IP -> value.indexOf(':') >= 0 ? "[" + value + "]" : value;
                    // [fd00::]/8: the brackets keep an IPv6 block's colons apart from a port's
                    case CIDR -> value.indexOf(':') >= 0 ? "[" + value.replace("/", "]/") : value;
                    default -> value;
                };
        return port.isPresent() ? host + ":" + port.getAsInt() : host;
    }

    /** Whether this rule covers {@code host} (lower case, no trailing dot) on {@code port}. */
    public boolean matches(String host, int port) {
        if (this.port.isPresent() ? this.port.getAsInt() != port : port != 80 && port != 443) {
            return false;
        }
        return switch (kind) {
            case HOST, IP -> value.equals(host);
            case SUBDOMAINS -> host.endsWith("." + value);
            case CIDR -> false; // checked by the enforcement point on resolved addresses
        };
    }
}
