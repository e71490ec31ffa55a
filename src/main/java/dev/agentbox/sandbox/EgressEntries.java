package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.EgressRule.Kind;
import java.util.Arrays;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * Reads one egress entry as a caller or the operator writes it into an {@link EgressRule}, or
 * refuses it with {@code 400 invalid-request} naming the field it came from.
 *
 * <p>The accepted spellings, with an optional {@code :port} (1-65535, no leading zeros) after each:
 *
 * <ul>
 *   <li>a host name, {@code api.anthropic.com}: labels of {@code [a-z0-9-]}, 1-63 characters, not
 *       starting or ending with a hyphen, at most 253 characters in all, the last label not all
 *       digits. Upper case is lowered and one trailing dot dropped; nothing else is changed.
 *   <li>{@code *.domain}, {@code *.npmjs.org}: any name below the domain, never the domain itself.
 *       The {@code *} is the whole first label and nowhere else; {@code *.com} (one label after it)
 *       is refused as too broad.
 *   <li>an IPv4 address, {@code 10.0.0.1} (four decimal numbers 0-255, no leading zeros): every
 *       name whose labels are all digits is read as one.
 *   <li>an IPv6 address in brackets, {@code [2001:db8::1]} or {@code [2001:db8::1]:443}.
 *   <li>a CIDR block, {@code 10.0.0.0/8} or {@code [fd00::]/8} (the prefix length after the closing
 *       bracket, so that {@code [fd00::]/8:443} stays unambiguous), with no address bits set beyond
 *       the prefix.
 * </ul>
 *
 * Addresses and blocks are accepted only where IP literals are allowed ({@code
 * agentbox.egress.allow-ip-literals}); their rules hold the canonical text of the address (IPv6 as
 * in RFC 5952), so two spellings of one address are one rule and one sandbox key.
 *
 * <p>Never resolves anything: parsing an entry must not reach DNS (an attacker's entry would
 * otherwise make the server query names of the attacker's choosing), so addresses are read by hand,
 * never by {@code InetAddress.getByName}.
 */
public final class EgressEntries {

    /** The longest DNS name in its text form (RFC 1035, without the trailing dot). */
    static final int MAX_NAME_LENGTH = 253;

    static final int MAX_LABEL_LENGTH = 63;

    /**
     * Longer than any valid entry ({@code *.} + a 253-character name + {@code :65535}); a longer
     * text is refused before it is looked at.
     */
    static final int MAX_ENTRY_LENGTH = 270;

    private static final String IP_NOT_ALLOWED =
            "is an IP literal; IP literals are not allowed here (agentbox.egress.allow-ip-literals)";

    private EgressEntries() {}

    /**
     * The rule {@code text} spells.
     *
     * @param field the name the {@code 400} gives, e.g. {@code policy.egress.allow[2]}
     * @param ipLiteralsAllowed whether addresses and CIDR blocks are accepted
     * @throws dev.agentbox.problem.ProblemException {@code invalid-request} naming {@code field}
     */
    public static EgressRule parse(String text, String field, boolean ipLiteralsAllowed) {
        if (text == null || text.isEmpty()) {
            throw SandboxSpecParser.invalid(field, "must not be empty");
        }
        if (text.length() > MAX_ENTRY_LENGTH) {
            throw SandboxSpecParser.invalid(
                    field, "is longer than " + MAX_ENTRY_LENGTH + " characters");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= ' ' || c == 0x7f) {
                throw SandboxSpecParser.invalid(
                        field, "must not contain whitespace or control characters");
            }
            if (c > 0x7e) {
                throw SandboxSpecParser.invalid(
                        field, "must be ASCII (an internationalised name in its xn-- form)");
            }
        }
        if (text.contains("://")) {
            throw SandboxSpecParser.invalid(field, "must be a host name, not a URL");
        }
        if (text.indexOf('@') >= 0) {
            throw SandboxSpecParser.invalid(
                    field, "must be a host name without user information (user@)");
        }
        if (text.startsWith("[")) {
            if (!ipLiteralsAllowed) {
                throw SandboxSpecParser.invalid(field, IP_NOT_ALLOWED);
            }
            return bracketed(text, field);
        }
        int slash = text.indexOf('/');
        String beforeSlash = slash < 0 ? text : text.substring(0, slash);
        if (slash >= 0 && !numeric(beforeSlash)) {
            throw SandboxSpecParser.invalid(
                    field, "must be a host name without a path (only host, *.domain or address)");
        }
        int colon = text.indexOf(':');
        if (colon >= 0 && text.indexOf(':', colon + 1) >= 0) {
            throw SandboxSpecParser.invalid(
                    field,
                    "has more than one ':' (an IPv6 address is written in brackets:"
                            + " [2001:db8::1] or [2001:db8::1]:443)");
        }
        String host = colon < 0 ? text : text.substring(0, colon);
        OptionalInt port = colon < 0 ? OptionalInt.empty() : port(text.substring(colon + 1), field);
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1);
        }
        if (host.isEmpty()) {
            throw SandboxSpecParser.invalid(field, "has no host name");
        }
        if (numeric(host)) {
            if (!ipLiteralsAllowed) {
                throw SandboxSpecParser.invalid(field, IP_NOT_ALLOWED);
            }
            return ipv4Entry(host, port, field);
        }
        return name(host.toLowerCase(Locale.ROOT), port, field);
    }

    /** Digits and dots only (and a CIDR's slash): what this parser reads as an IPv4 literal. */
    private static boolean numeric(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> c == '.' || c == '/' || isDigit(c));
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    /** A port: 1-65535 in decimal, no sign, no leading zero. */
    private static OptionalInt port(String digits, String field) {
        if (digits.isEmpty()
                || digits.length() > 5
                || digits.charAt(0) == '0'
                || !digits.chars().allMatch(EgressEntries::isDigit)
                || Integer.parseInt(digits) > 65535) {
            throw SandboxSpecParser.invalid(
                    field, "has an invalid port (1-65535, without leading zeros)");
        }
        return OptionalInt.of(Integer.parseInt(digits));
    }

    private static EgressRule name(String name, OptionalInt port, String field) {
        if (name.length() > MAX_NAME_LENGTH) {
            throw SandboxSpecParser.invalid(
                    field,
                    "is longer than " + MAX_NAME_LENGTH + " characters (a DNS name's limit)");
        }
        String[] labels = name.split("\\.", -1);
        boolean wildcard = labels[0].equals("*");
        if (wildcard && labels.length == 1) {
            throw SandboxSpecParser.invalid(
                    field, "is a bare * (it would allow every destination; name the domains)");
        }
        if (wildcard && labels.length == 2) {
            throw SandboxSpecParser.invalid(
                    field, "is too broad: *. needs a domain below the top level (*.example.com)");
        }
        for (int i = wildcard ? 1 : 0; i < labels.length; i++) {
            label(labels[i], field);
        }
        if (labels[labels.length - 1].chars().allMatch(EgressEntries::isDigit)) {
            // Only an address is all digits at the end; "example.123" is neither a name nor one.
            throw SandboxSpecParser.invalid(
                    field, "must not end in an all-digit label (an IPv4 address has four numbers)");
        }
        String value = wildcard ? name.substring(2) : name;
        if (value.equals("localhost") || value.endsWith(".localhost")) {
            // RFC 6761: such names are the loopback host, whatever DNS says; never a destination.
            throw SandboxSpecParser.invalid(field, "names the loopback host (localhost)");
        }
        return new EgressRule(wildcard ? Kind.SUBDOMAINS : Kind.HOST, value, port);
    }

    private static void label(String label, String field) {
        if (label.isEmpty()) {
            throw SandboxSpecParser.invalid(
                    field, "has an empty label (two dots, or a leading dot)");
        }
        if (label.indexOf('*') >= 0) {
            throw SandboxSpecParser.invalid(
                    field, "may hold * only as its whole first label (*.example.com)");
        }
        if (label.length() > MAX_LABEL_LENGTH) {
            throw SandboxSpecParser.invalid(
                    field, "has a label longer than " + MAX_LABEL_LENGTH + " characters");
        }
        for (int i = 0; i < label.length(); i++) {
            char c = label.charAt(i);
            if (!(c >= 'a' && c <= 'z') && !isDigit(c) && c != '-') {
                throw SandboxSpecParser.invalid(
                        field,
                        "may hold only letters, digits, hyphens and dots"
                                + " (a host name, *.domain or address, optionally :port)");
            }
        }
        if (label.startsWith("-") || label.endsWith("-")) {
            throw SandboxSpecParser.invalid(field, "has a label that starts or ends with a hyphen");
        }
    }

    /** {@code a.b.c.d} or {@code a.b.c.d/len}. */
    private static EgressRule ipv4Entry(String text, OptionalInt port, String field) {
        int slash = text.indexOf('/');
        byte[] address = ipv4(slash < 0 ? text : text.substring(0, slash));
        if (address == null) {
            throw SandboxSpecParser.invalid(
                    field, "is not an IPv4 address (four numbers 0-255, without leading zeros)");
        }
        if (slash < 0) {
            return new EgressRule(Kind.IP, formatIpv4(address), port);
        }
        int length = prefixLength(text.substring(slash + 1), 32, field);
        byte[] network = network(address, length, field);
        return new EgressRule(Kind.CIDR, formatIpv4(network) + "/" + length, port);
    }

    /** {@code [v6]}, {@code [v6]:port}, {@code [v6]/len} or {@code [v6]/len:port}. */
    private static EgressRule bracketed(String text, String field) {
        int close = text.indexOf(']');
        if (close < 0) {
            throw SandboxSpecParser.invalid(field, "has a '[' without its ']'");
        }
        String inside = text.substring(1, close);
        String rest = text.substring(close + 1);
        if (inside.indexOf('%') >= 0) {
            throw SandboxSpecParser.invalid(field, "must not name an IPv6 zone (%…)");
        }
        if (inside.indexOf('/') >= 0) {
            throw SandboxSpecParser.invalid(
                    field, "has its prefix length inside the brackets (write [fd00::]/8)");
        }
        byte[] address = ipv6(inside);
        if (address == null) {
            throw SandboxSpecParser.invalid(field, "is not an IPv6 address");
        }
        OptionalInt prefix = OptionalInt.empty();
        if (rest.startsWith("/")) {
            int colon = rest.indexOf(':');
            String digits = colon < 0 ? rest.substring(1) : rest.substring(1, colon);
            prefix = OptionalInt.of(prefixLength(digits, 128, field));
            rest = colon < 0 ? "" : rest.substring(colon);
        }
        OptionalInt port = OptionalInt.empty();
        if (rest.startsWith(":")) {
            port = port(rest.substring(1), field);
        } else if (!rest.isEmpty()) {
            throw SandboxSpecParser.invalid(
                    field, "has something after the ']' that is neither /prefix nor :port");
        }
        if (prefix.isEmpty()) {
            return new EgressRule(Kind.IP, formatIpv6(address), port);
        }
        byte[] network = network(address, prefix.getAsInt(), field);
        return new EgressRule(Kind.CIDR, formatIpv6(network) + "/" + prefix.getAsInt(), port);
    }

    private static int prefixLength(String digits, int max, String field) {
        if (digits.isEmpty()
                || digits.length() > 3
                || !digits.chars().allMatch(EgressEntries::isDigit)
                || (digits.length() > 1 && digits.charAt(0) == '0')
                || Integer.parseInt(digits) > max) {
            throw SandboxSpecParser.invalid(
                    field, "has an invalid prefix length (0-" + max + ", without leading zeros)");
        }
        return Integer.parseInt(digits);
    }

    /**
     * The block's network address; an address with bits set beyond the prefix is refused rather
     * than masked, because the caller most likely meant another block than the one it spelt.
     */
    private static byte[] network(byte[] address, int length, String field) {
        byte[] network = address.clone();
        for (int bit = length; bit < network.length * 8; bit++) {
            network[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        if (!Arrays.equals(network, address)) {
            String shown =
                    (network.length == 4 ? formatIpv4(network) : "[" + formatIpv6(network) + "]")
                            + "/"
                            + length;
            throw SandboxSpecParser.invalid(
                    field,
                    "has address bits set beyond its prefix length (the block is " + shown + ")");
        }
        return network;
    }

    /** Four decimal numbers 0-255 without leading zeros (no octal, no hex, no shortened forms). */
    static byte[] ipv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty()
                    || p.length() > 3
                    || !p.chars().allMatch(EgressEntries::isDigit)
                    || (p.length() > 1 && p.charAt(0) == '0')) {
                return null;
            }
            int v = Integer.parseInt(p);
            if (v > 255) {
                return null;
            }
            out[i] = (byte) v;
        }
        return out;
    }

    /**
     * RFC 4291 section 2.2 text: eight groups of 1-4 hex digits, at most one {@code ::} standing
     * for one or more zero groups, the last 32 bits optionally as an IPv4 address.
     */
    static byte[] ipv6(String text) {
        if (text.isEmpty()) {
            return null;
        }
        String groups = text;
        byte[] v4 = null;
        int lastColon = text.lastIndexOf(':');
        if (lastColon >= 0 && text.indexOf('.', lastColon) >= 0) {
            v4 = ipv4(text.substring(lastColon + 1));
            if (v4 == null) {
                return null;
            }
            // Two placeholder groups where the IPv4 form stood, so the group count is checked as
            // for any other address; the four bytes are written over them below.
            groups = text.substring(0, lastColon + 1) + "0:0";
        }
        int gap = groups.indexOf("::");
        if (gap >= 0 && groups.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        String[] head;
        String[] tail;
        if (gap < 0) {
            head = groups.split(":", -1);
            tail = new String[0];
            if (head.length != 8) {
                return null;
            }
        } else {
            String left = groups.substring(0, gap);
            String right = groups.substring(gap + 2);
            head = left.isEmpty() ? new String[0] : left.split(":", -1);
            tail = right.isEmpty() ? new String[0] : right.split(":", -1);
            if (head.length + tail.length > 7) {
                return null; // "::" stands for at least one group
            }
        }
        int[] values = new int[8];
        for (int i = 0; i < head.length + tail.length; i++) {
            String g = i < head.length ? head[i] : tail[i - head.length];
            int v = hexGroup(g);
            if (v < 0) {
                return null;
            }
            values[i < head.length ? i : 8 - tail.length + (i - head.length)] = v;
        }
        byte[] out = new byte[16];
        for (int i = 0; i < 8; i++) {
            out[2 * i] = (byte) (values[i] >>> 8);
            out[2 * i + 1] = (byte) values[i];
        }
        if (v4 != null) {
            System.arraycopy(v4, 0, out, 12, 4);
        }
        return out;
    }

    private static int hexGroup(String g) {
        if (g.isEmpty() || g.length() > 4) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < g.length(); i++) {
            int d = Character.digit(g.charAt(i), 16);
            if (d < 0 || g.charAt(i) > 'f') {
                return -1;
            }
            v = v * 16 + d;
        }
        return v;
    }

    static String formatIpv4(byte[] a) {
        return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
    }

    /**
     * RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero groups
     * (the first of equal runs) as {@code ::}.
     */
    static String formatIpv6(byte[] a) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                s.append("::");
                i += bestLength - 1;
                continue;
            }
            if (s.length() > 0 && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(g[i]));
        }
        return s.toString();
    }
}
