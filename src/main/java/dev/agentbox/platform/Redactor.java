package dev.agentbox.platform;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Replaces secret values in text with {@value #MASK} before the text leaves the sandbox (a problem
 * detail, a run's error, a log line). Pure: no I/O, immutable, thread-safe.
 *
 * <p>What counts as a value's appearance (all replaced by one {@value #MASK}):
 *
 * <ul>
 *   <li>the value itself;
 *   <li>its base64, standard and URL-safe alphabet, with and without padding — also when the value
 *       sits inside a longer base64 stream ({@code echo "$KEY" | base64}): for each of the three
 *       byte alignments the characters that depend on the value's bytes alone;
 *   <li>its URL encoding ({@code %XX}, with {@code +} or {@code %20} for a space).
 * </ul>
 *
 * <p>Limits, on purpose:
 *
 * <ul>
 *   <li>values shorter than {@value #MIN_VALUE_CHARS} characters are ignored: masking every {@code
 *       "1"} or {@code "yes"} would shred the output and hide nothing worth hiding;
 *   <li>base64 fragments shorter than {@value #MIN_FRAGMENT_CHARS} characters are ignored for the
 *       same reason (they occur by chance in any base64 text);
 *   <li>a value split by the writer (line-wrapped base64, a secret printed in two pieces) is not
 *       recognized;
 *   <li>at most {@value #MAX_VALUES} values are taken, the longest (ties by natural order, so the
 *       choice does not depend on the order they come in — a successor that reads them from the
 *       sandbox picks the same): every chunk of a run passes the redactor, and a sandbox whose
 *       secrets file was grown on purpose must not make that cost unbounded.
 * </ul>
 *
 * Longer needles are matched first, so a value that contains another value is masked whole.
 */
public final class Redactor {

    public static final String MASK = "***";
    public static final int MIN_VALUE_CHARS = 4;
    static final int MIN_FRAGMENT_CHARS = 6;
    public static final int MAX_VALUES = 100;
    private static final Comparator<String> LONGEST_FIRST =
            Comparator.comparingInt(String::length)
                    .reversed()
                    .thenComparing(Comparator.naturalOrder());
    private static final Redactor NONE = new Redactor(null, List.of());

    /** One alternation of every needle, longest first; null when there is nothing to redact. */
    private final Pattern needles;

    /** The raw values, for a tail that may begin in the middle of one. */
    private final List<String> values;

    private Redactor(Pattern needles, List<String> values) {
        this.needles = needles;
        this.values = values;
    }

    /** A redactor that changes nothing. */
    public static Redactor none() {
        return NONE;
    }

    /**
     * A redactor for these secret values (nulls and values below the minimum length are skipped).
     */
    public static Redactor of(Collection<String> values) {
        List<String> kept =
                values.stream()
                        .filter(v -> v != null && v.length() >= MIN_VALUE_CHARS)
                        .distinct()
                        .sorted(LONGEST_FIRST)
                        .limit(MAX_VALUES)
                        .toList();
        Set<String> all = new LinkedHashSet<>();
        for (String v : kept) {
            all.addAll(forms(v));
        }
        if (all.isEmpty()) {
            return NONE;
        }
        List<String> sorted = new ArrayList<>(all);
        sorted.sort(LONGEST_FIRST);
        String regex = sorted.stream().map(Pattern::quote).collect(Collectors.joining("|"));
        return new Redactor(Pattern.compile(regex), kept);
    }

    /** Whether this redactor would change nothing. */
    public boolean isEmpty() {
        return needles == null;
    }

    /**
     * {@code text} with every appearance of a secret replaced by {@value #MASK}; null stays null.
     */
    public String redact(String text) {
        if (needles == null || text == null || text.isEmpty()) {
            return text;
        }
        Matcher m = needles.matcher(text);
        return m.find() ? m.replaceAll(Matcher.quoteReplacement(MASK)) : text;
    }

    /**
     * {@link #redact} for the tail of a longer output (cut by {@code tail -c} inside the sandbox):
     * the cut may fall inside a value, so a start of the text that is the last {@value
     * #MIN_VALUE_CHARS} or more characters of a value is masked too.
     */
    public String redactTail(String tail) {
        String text = redact(tail);
        if (text == null) {
            return null;
        }
        int longest = 0;
        for (String v : values) {
            for (int len = Math.min(v.length() - 1, text.length());
                    len >= MIN_VALUE_CHARS && len > longest;
                    len--) {
                if (text.startsWith(v.substring(v.length() - len))) {
                    longest = len;
                    break;
                }
            }
        }
        return longest == 0 ? text : MASK + text.substring(longest);
    }

    /** Every form of one value that is masked. */
    static Set<String> forms(String value) {
        Set<String> forms = new LinkedHashSet<>();
        forms.add(value);
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        for (Base64.Encoder enc : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
            forms.add(enc.encodeToString(bytes));
            forms.add(enc.withoutPadding().encodeToString(bytes));
            for (int offset = 0; offset < 3; offset++) {
                String fragment = embedded(enc.withoutPadding(), bytes, offset);
                if (fragment.length() >= MIN_FRAGMENT_CHARS) {
                    forms.add(fragment);
                }
            }
        }
        String form = URLEncoder.encode(value, StandardCharsets.UTF_8);
        forms.add(form);
        forms.add(form.replace("+", "%20"));
        return forms;
    }

    /**
     * The base64 characters that depend only on {@code bytes} when they start {@code offset} bytes
     * into a 3-byte group of a longer stream: drop the leading characters that mix in the bytes
     * before (0, 2 or 3 of them) and the last one if it mixes in the bytes after.
     */
    static String embedded(Base64.Encoder unpadded, byte[] bytes, int offset) {
        byte[] shifted = new byte[offset + bytes.length];
        System.arraycopy(bytes, 0, shifted, offset, bytes.length);
        String all = unpadded.encodeToString(shifted);
        int from =
                switch (offset) {
                    case 0 -> 0;
                    case 1 -> 2;
                    default -> 3;
                };
        int to = shifted.length % 3 == 0 ? all.length() : all.length() - 1;
        return from >= to ? "" : all.substring(from, to);
    }
}
