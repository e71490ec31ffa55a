package dev.agentbox.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tables of request bodies pinned with their exact answers: a body line, then {@code "=> "} and the
 * answer, for each case. In a body, {@code {{REP:s:n}}} stands for {@code s} repeated {@code n}
 * times and {@code {{REPJ:s:n}}} for {@code n} copies joined by commas, so long bodies stay short.
 * Answers show control characters and lone surrogates as {@code <U+XXXX>}, so a table stays text.
 */
public final class PinnedAnswers {

    private static final Pattern REP = Pattern.compile("\\{\\{(REPJ?):(.*?):(\\d+)}}");

    private PinnedAnswers() {}

    /** The (body, answer) pairs of {@code table}. */
    public static List<String[]> pairs(String table) {
        List<String[]> result = new ArrayList<>();
        String[] lines = table.split("\n");
        for (int i = 0; i + 1 < lines.length; i += 2) {
            assertThat(lines[i + 1]).startsWith("=> ");
            result.add(new String[] {lines[i], lines[i + 1].substring(3)});
        }
        return result;
    }

    /** Each pair whose body {@code answer} answers otherwise, with both answers. */
    public static List<String> mismatches(List<String[]> pairs, Function<String, String> answer) {
        List<String> wrong = new ArrayList<>();
        for (String[] c : pairs) {
            String actual = answer.apply(c[0]);
            if (!actual.equals(c[1])) {
                wrong.add(c[0] + "\n  expected " + c[1] + "\n  actual   " + actual);
            }
        }
        return wrong;
    }

    /** The JSON of {@code body}, its repetitions expanded. */
    public static JsonValue json(String body) {
        return Json.createReader(new StringReader(expand(body))).readValue();
    }

    /** A refusal as a table pins it: status, code, extensions in key order, detail. */
    public static String refusal(ProblemException e) {
        return show(
                e.status()
                        + " "
                        + e.code()
                        + " "
                        + new TreeMap<>(e.extensions())
                        + " "
                        + e.detail());
    }

    static String expand(String body) {
        Matcher m = REP.matcher(body);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            int n = Integer.parseInt(m.group(3));
            String r =
                    m.group(1).equals("REP")
                            ? m.group(2).repeat(n)
                            : String.join(",", Collections.nCopies(n, m.group(2)));
            m.appendReplacement(out, Matcher.quoteReplacement(r));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Control characters and lone surrogates as {@code <U+XXXX>}. */
    public static String show(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (Character.isISOControl(c)
                    || Character.isSurrogate(c)
                    || c == '\u2028'
                    || c == '\u2029') {
                out.append(String.format("<U+%04X>", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
