package dev.agentbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package map of docs/architecture.md cannot drift from the code: it lists every package of the
 * main code once, each with the layer {@link Layers} gives it (the one {@link ArchitectureTest}
 * checks), and its layering table lists those layers top to bottom with their packages.
 */
class PackageMapTest {

    private static final Path DOC = Path.of("docs/architecture.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private static List<String> lines;

    @BeforeAll
    static void readTheDocument() throws IOException {
        lines = Files.readAllLines(DOC);
    }

    /** The rows of the first table after {@code heading}, each as its trimmed cells. */
    private static List<List<String>> table(String heading) {
        int at = lines.indexOf(heading);
        assertThat(at).as("%s has a line %s", DOC, heading).isNotNegative();
        List<List<String>> rows = new ArrayList<>();
        int i = at + 1;
        while (i < lines.size() && !lines.get(i).startsWith("|")) {
            i++;
        }
        // The header and the |---| line are not rows.
        for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String line = lines.get(i);
            rows.add(
                    Arrays.stream(line.substring(1, line.lastIndexOf('|')).split("\\|", -1))
                            .map(String::trim)
                            .toList());
        }
        assertThat(rows).as("the table after %s", heading).isNotEmpty();
        return rows;
    }

    private static List<String> codeSpans(String cell) {
        List<String> spans = new ArrayList<>();
        Matcher m = CODE.matcher(cell);
        while (m.find()) {
            spans.add(m.group(1));
        }
        return spans;
    }

    /** Package → layer, as the package map says, in the map's order. */
    private static Map<String, String> packageMap() {
        Map<String, String> map = new LinkedHashMap<>();
        for (List<String> row : table("## Package map")) {
            String pkg = codeSpans(row.get(0)).get(0);
            assertThat(map.put(pkg, row.get(1))).as("%s listed twice", pkg).isNull();
        }
        return map;
    }

    private static Set<String> packagesOfTheCode() {
        return new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages(Layers.ROOT)
                        .stream()
                        .map(JavaClass::getPackageName)
                        .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theMapListsEveryPackageOfTheCodeAndNoOther() {
        assertThat(new TreeSet<>(packageMap().keySet())).isEqualTo(packagesOfTheCode());
    }

    @Test
    void eachPackageSitsInTheLayerTheRulesGiveIt() {
        Map<String, String> documented = packageMap();
        Map<String, String> checked = new LinkedHashMap<>();
        documented
                .keySet()
                .forEach(p -> checked.put(p, Layers.of(p).map(Layers.Layer::name).orElse("none")));
        assertThat(documented).containsExactlyEntriesOf(checked);
    }

    @Test
    void theLayeringTableListsTheLayersTopDownWithTheirPackages() {
        Map<String, List<String>> documented = new LinkedHashMap<>();
        for (List<String> row :
                table("**Layering.** Dependencies point one way, from the edge down:")) {
            documented.put(row.get(0), codeSpans(row.get(1)));
        }
        Map<String, List<String>> checked = new LinkedHashMap<>();
        Layers.TOP_DOWN.forEach(l -> checked.put(l.name(), l.packages()));
        assertThat(documented).containsExactlyEntriesOf(checked);
    }
}
