package dev.agentbox.platform;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

// Hand-written: not RFC 8785 (keys by code point, exact numbers), and stored fingerprints hash this
// form.
/**
 * The canonical JSON text of a value, and SHA-256 in hex. Two values that are equal as JSON data
 * (same members regardless of order, numerically equal numbers) always produce the same text, so
 * the text can be hashed into fingerprints (chunk fingerprints, sandbox keys).
 *
 * <p>The canonical form:
 *
 * <ul>
 *   <li><b>No insignificant whitespace</b> anywhere.
 *   <li><b>Objects</b>: members sorted by key, comparing keys by Unicode code point (not by UTF-16
 *       unit, so a supplementary character sorts after U+FFFF). JSON-P objects cannot hold
 *       duplicate keys, so the order is total.
 *   <li><b>Arrays</b>: elements in their order.
 *   <li><b>Numbers</b>: by numeric value, never by how they were written: {@code 1}, {@code 1.0},
 *       {@code 1e0} and {@code 10e-1} all become {@code 1}; {@code -0} becomes {@code 0}. Integers
 *       of at most 21 digits are written as plain digits ({@code 100}, {@code 1e2} → {@code 100});
 *       any other value is written as {@link BigDecimal#toString()} of the value with trailing
 *       zeros stripped ({@code 1.5}, {@code 0.001}, {@code 1E+22}, {@code 1.5E-7}, and a 23-digit
 *       integer whose last digit is not zero as plain digits). A stripped {@code BigDecimal} is
 *       unique per numeric value, so so is its text; a huge exponent never expands into a huge
 *       string.
 *   <li><b>Strings</b>: only what JSON requires is escaped: {@code "} → {@code \"}, {@code \} →
 *       {@code \\}, the controls U+0008/0009/000A/000C/000D as {@code \b \t \n \f \r}, every other
 *       control below U+0020 as {@code \}{@code u00hh} (lowercase hex). A lone surrogate (possible
 *       in a Java string, not encodable in UTF-8) is written as {@code \}{@code udhhh} so the text
 *       stays valid UTF-8. Everything else, including non-ASCII and U+007F, is written literally.
 *   <li>{@code true}, {@code false}, {@code null} as such.
 * </ul>
 *
 * Hashes are always taken over the UTF-8 bytes of this text.
 */
public final class CanonicalJson {

    /** Integers with more digits than this are written in exponent form, as JavaScript does. */
    private static final int MAX_PLAIN_INTEGER_DIGITS = 21;

    private CanonicalJson() {}

    /** The canonical text of {@code value}; see the class documentation for the form. */
    public static String of(JsonValue value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    /** Lowercase hex SHA-256 of the UTF-8 bytes of {@code text} (64 characters). */
    public static String sha256Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            // Every Java platform is required to provide SHA-256.
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** Shorthand for {@code sha256Hex(of(value))}. */
    public static String sha256Of(JsonValue value) {
        return sha256Hex(of(value));
    }

    private static void write(JsonValue value, StringBuilder out) {
        switch (value.getValueType()) {
            case OBJECT -> writeObject(value.asJsonObject(), out);
            case ARRAY -> writeArray(value.asJsonArray(), out);
            case STRING -> writeString(((JsonString) value).getString(), out);
            case NUMBER -> out.append(number(((JsonNumber) value).bigDecimalValue()));
            case TRUE -> out.append("true");
            case FALSE -> out.append("false");
            case NULL -> out.append("null");
        }
    }

    private static void writeObject(JsonObject object, StringBuilder out) {
        List<Map.Entry<String, JsonValue>> members = new ArrayList<>(object.entrySet());
        members.sort((a, b) -> compareByCodePoint(a.getKey(), b.getKey()));
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, JsonValue> member : members) {
            if (!first) {
                out.append(',');
            }
            first = false;
            writeString(member.getKey(), out);
            out.append(':');
            write(member.getValue(), out);
        }
        out.append('}');
    }

    private static void writeArray(JsonArray array, StringBuilder out) {
        out.append('[');
        for (int i = 0; i < array.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            write(array.get(i), out);
        }
        out.append(']');
    }

    /** Compares by Unicode code point; {@link String#compareTo} compares UTF-16 units instead. */
    static int compareByCodePoint(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    static String number(BigDecimal value) {
        if (value.signum() == 0) {
            return "0";
        }
        BigDecimal stripped = value.stripTrailingZeros();
        boolean integral = stripped.scale() <= 0;
        if (integral && stripped.precision() - stripped.scale() <= MAX_PLAIN_INTEGER_DIGITS) {
            return stripped.toPlainString();
        }
        return stripped.toString();
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        unicodeEscape(c, out);
                    } else if (Character.isHighSurrogate(c)
                            && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        out.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        unicodeEscape(c, out);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void unicodeEscape(char c, StringBuilder out) {
        out.append("\\u").append(HexFormat.of().toHexDigits(c));
    }
}
