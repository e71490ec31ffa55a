package dev.agentbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The behaviour catalogue ({@code docs/behavior.md}) and the tests keep each other honest: every id
 * the catalogue lists is cited by a test under {@code src/test} (in a name, a {@code @DisplayName},
 * a Javadoc or a step name of a Node script), and every id a test cites is in the catalogue. An id
 * the catalogue lists under "Not yet pinned" is exempt from the first rule and must not be cited
 * (it is waiting for its test; citing it means it has one, so it leaves that list).
 *
 * <p>A citation is {@code FS-03} anywhere, or {@code _FS03} in a method name (a Java name has no
 * dash); a range {@code FS-01..FS-08} or {@code FS-01..08} cites every id in it, in the catalogue
 * and in a test alike. Runs from the project root; needs no Docker and no database.
 */
class BehaviourIdsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().normalize();
    private static final Path CATALOGUE = ROOT.resolve("docs/behavior.md");

    /** {@code FS-03}, {@code RP-07b}. */
    private static final String ID = "[A-Z]{2}-\\d{2}[a-z]?";

    /** {@code FS-01..FS-08} or {@code FS-01..08}. */
    private static final Pattern RANGE =
            Pattern.compile("\\b([A-Z]{2})-(\\d{2})\\s*\\.\\.\\s*(?:\\1-)?(\\d{2})(?![0-9a-z])");

    private static final Pattern SINGLE = Pattern.compile("(?<![A-Za-z0-9])(" + ID + ")(?![0-9])");

    /** {@code _AL02} in a method name such as {@code rewrittenLineDiverges_AL02}. */
    private static final Pattern IN_NAME =
            Pattern.compile("(?<=_)([A-Z]{2})(\\d{2}[a-z]?)(?![0-9A-Za-z])");

    /** A catalogue row: {@code | FS-03 | …} or {@code | SH-01, SH-02 | …}. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*([^|]*?)\\s*\\|");

    private static final String NOT_PINNED_HEADING = "## Not yet pinned";

    private static final Path SELF =
            Path.of("src/test/java/dev/agentbox/docs/BehaviourIdsTest.java");

    @Test
    void everyCatalogueIdIsCitedByATestAndEveryCitedIdIsInTheCatalogue() {
        Catalogue catalogue = catalogue();
        TreeMap<String, List<String>> cited = citations();
        assertThat(catalogue.ids()).as("ids parsed from %s", CATALOGUE).hasSizeGreaterThan(100);

        Set<String> uncited = new TreeSet<>(catalogue.ids());
        uncited.removeAll(cited.keySet());
        uncited.removeAll(catalogue.notPinned());
        assertThat(uncited)
                .as(
                        "ids in docs/behavior.md that no test under src/test cites: cite each where a"
                                + " test checks it, write the test, or move it to \"Not yet pinned\"")
                .isEmpty();

        TreeMap<String, List<String>> unknown = new TreeMap<>(cited);
        unknown.keySet().removeAll(catalogue.ids());
        assertThat(unknown)
                .as("ids cited in tests (id → files) that docs/behavior.md does not have")
                .isEmpty();

        TreeMap<String, List<String>> pinnedAfterAll = new TreeMap<>(cited);
        pinnedAfterAll.keySet().retainAll(catalogue.notPinned());
        assertThat(pinnedAfterAll)
                .as("ids listed as not yet pinned that a test cites (id → files): take them off")
                .isEmpty();
    }

    @Test
    void rangesExpandToEveryIdInThemAndMethodNamesCiteWithoutTheDash() {
        assertThat(ids("see FS-01..FS-03 and PJ-05..06; also RP-07b, not XFS-09 or AL-100"))
                .containsExactly("FS-01", "FS-02", "FS-03", "PJ-05", "PJ-06", "RP-07b");
        assertThat(ids("void rewrittenLineDiverges_AL02() {} void x_AL07_AL08() {} void AL09()"))
                .containsExactly("AL-02", "AL-07", "AL-08");
    }

    /** The catalogue's ids, and those of its "Not yet pinned" list. */
    private record Catalogue(Set<String> ids, Set<String> notPinned) {}

    private static Catalogue catalogue() {
        Set<String> ids = new TreeSet<>();
        Set<String> notPinned = new TreeSet<>();
        boolean inNotPinned = false;
        for (String line : read(CATALOGUE).split("\n")) {
            if (line.startsWith("## ")) {
                inNotPinned = line.startsWith(NOT_PINNED_HEADING);
                continue;
            }
            if (inNotPinned) {
                notPinned.addAll(ids(line));
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                ids.addAll(ids(row.group(1)));
            }
        }
        assertThat(ids).as("every not-yet-pinned id is in the catalogue").containsAll(notPinned);
        return new Catalogue(ids, notPinned);
    }

    /** Every id cited under {@code src/test}, with the files that cite it. */
    private static TreeMap<String, List<String>> citations() {
        TreeMap<String, List<String>> cited = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT.resolve("src/test"))) {
            files.filter(Files::isRegularFile)
                    .filter(p -> !p.toString().contains("node_modules"))
                    .filter(p -> p.toString().matches(".*\\.(java|mjs|js)$"))
                    // This test's own examples cite nothing.
                    .filter(p -> !p.endsWith(SELF))
                    .forEach(
                            p -> {
                                for (String id : ids(read(p))) {
                                    cited.computeIfAbsent(id, k -> new ArrayList<>())
                                            .add(ROOT.relativize(p).toString());
                                }
                            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cited;
    }

    /** The ids {@code text} cites: singles, ranges expanded, and method-name citations. */
    static Set<String> ids(String text) {
        Set<String> out = new TreeSet<>();
        Matcher range = RANGE.matcher(text);
        while (range.find()) {
            int from = Integer.parseInt(range.group(2));
            int to = Integer.parseInt(range.group(3));
            assertThat(to).as("range %s", range.group()).isGreaterThan(from);
            for (int i = from; i <= to; i++) {
                out.add(String.format("%s-%02d", range.group(1), i));
            }
        }
        Matcher single = SINGLE.matcher(text);
        while (single.find()) {
            out.add(single.group(1));
        }
        Matcher inName = IN_NAME.matcher(text);
        while (inName.find()) {
            out.add(inName.group(1) + "-" + inName.group(2));
        }
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
