package dev.agentbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository's documentation stands on its own: every link in {@code README.md}, {@code
 * docs/**} and {@code bench/README.md} leads to a file or directory inside the repository (and,
 * with a {@code #fragment}, to a heading of that page), or to an http(s) URL on a short allowlist;
 * no file names documents that live outside the repository; and every page of {@code docs/} can be
 * reached from the README.
 *
 * <p>Runs from the project root, Maven's working directory; needs no Docker and no database. Text
 * inside code spans and fenced code blocks is not a link.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().normalize();

    /** Hosts a document may link to: add one only when a page needs it. */
    private static final Set<String> ALLOWED_HOSTS = Set.of("localhost");

    /** Inline links and images: {@code [text](target "title")}, {@code ![alt](target)}. */
    private static final Pattern INLINE =
            Pattern.compile("\\]\\(\\s*(<[^>]*>|[^)\\s]+)(?:\\s+\"[^\"]*\")?\\s*\\)");

    /** Reference definitions: {@code [label]: target}. */
    private static final Pattern REFERENCE =
            Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");

    /** Autolinks: {@code <scheme:...>}. */
    private static final Pattern AUTOLINK =
            Pattern.compile("<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\\s]*)>");

    /** Links written as HTML. */
    private static final Pattern HTML = Pattern.compile("(?i)\\b(?:href|src)\\s*=\\s*\"([^\"]*)\"");

    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

    /**
     * Names of documents kept outside the repository, assembled here so that this file does not
     * mention them itself.
     */
    private static final List<String> OUTSIDE_NAMES =
            Stream.of("API", "BEHAVIOR", "ARCHITECTURE", "STACK", "STYLE")
                    .map(name -> name + ".md")
                    .toList();

    private static final String OUTSIDE_FOLDER = ".." + "/shared";

    record Link(Path page, String target) {
        @Override
        public String toString() {
            return ROOT.relativize(page) + ": " + target;
        }
    }

    @Test
    void everyRelativeLinkResolvesInsideTheRepository() {
        List<String> broken = new ArrayList<>();
        for (Link link : links()) {
            if (link.target().startsWith("#") || SCHEME.matcher(link.target()).find()) {
                continue;
            }
            if (resolve(link).isEmpty()) {
                broken.add(link.toString());
            }
        }
        assertThat(broken).as("links that leave the repository or name nothing").isEmpty();
    }

    @Test
    void everyAnchorNamesAHeadingOfItsPage() {
        List<String> broken = new ArrayList<>();
        for (Link link : links()) {
            int hash = link.target().indexOf('#');
            if (hash < 0 || SCHEME.matcher(link.target()).find()) {
                continue;
            }
            String anchor = decode(link.target().substring(hash + 1));
            Path page = hash == 0 ? link.page() : resolve(link).orElse(null);
            if (page == null || !Files.isRegularFile(page) || !page.toString().endsWith(".md")) {
                continue; // a missing page is reported by the relative-link check
            }
            if (!anchors(read(page)).contains(anchor)) {
                broken.add(link.toString());
            }
        }
        assertThat(broken).as("anchors without a matching heading").isEmpty();
    }

    @Test
    void everyWebLinkGoesToAnAllowedHost() {
        List<String> refused = new ArrayList<>();
        for (Link link : links()) {
            if (link.target().startsWith("#") || !SCHEME.matcher(link.target()).find()) {
                continue;
            }
            if (!allowedWebLink(link.target())) {
                refused.add(link.toString());
            }
        }
        assertThat(refused).as("links to schemes or hosts outside %s", ALLOWED_HOSTS).isEmpty();
    }

    @Test
    void noFileNamesADocumentOutsideTheRepository() throws IOException {
        List<String> mentions = new ArrayList<>();
        for (Path file : filesToSearch()) {
            String text = read(file);
            for (String name : OUTSIDE_NAMES) {
                if (Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(name))
                        .matcher(text)
                        .find()) {
                    mentions.add(ROOT.relativize(file) + ": " + name);
                }
            }
            if (text.contains(OUTSIDE_FOLDER)) {
                mentions.add(ROOT.relativize(file) + ": " + OUTSIDE_FOLDER);
            }
        }
        assertThat(mentions).as("mentions of documents outside the repository").isEmpty();
    }

    @Test
    void everyPageOfDocsIsLinkedFromTheReadme() throws IOException {
        Path readme = ROOT.resolve("README.md");
        Set<Path> linked = new LinkedHashSet<>();
        for (String target : targets(read(readme))) {
            resolve(new Link(readme, target)).ifPresent(linked::add);
        }
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            List<Path> unlinked =
                    pages.filter(p -> p.toString().endsWith(".md"))
                            .map(p -> p.toAbsolutePath().normalize())
                            .filter(p -> !linked.contains(p))
                            .map(ROOT::relativize)
                            .toList();
            assertThat(unlinked).as("pages of docs/ the README does not link").isEmpty();
        }
    }

    @Test
    void linksAreFoundInEveryFormAndNotInsideCode() {
        String page =
                """
                See [the API](docs/api.md#errors), ![a picture](img/x.png "title") and <https://localhost/x>.
                <a href="bench/README.md">bench</a>
                [ref]: docs/operations.md
                Not a link: `[x](nowhere.md)` nor ``<http://example.com>``.
                ```
                [y](nowhere-either.md)
                ```
                """;
        assertThat(targets(page))
                .containsExactlyInAnyOrder(
                        "docs/api.md#errors",
                        "img/x.png",
                        "https://localhost/x",
                        "bench/README.md",
                        "docs/operations.md");
    }

    @Test
    void headingsBecomeTheAnchorsARendererMakes() {
        String page =
                """
                # Sandbox API (`bench/sandboxes`)
                ## Leases, claims and epochs
                ## Notes
                ## Notes
                """;
        assertThat(anchors(page))
                .contains(
                        "sandbox-api-benchsandboxes",
                        "leases-claims-and-epochs",
                        "notes",
                        "notes-1");
    }

    @Test
    void theReadmeHasLinksToCheck() {
        assertThat(links())
                .filteredOn(
                        l -> l.page().endsWith("README.md") && l.page().getParent().equals(ROOT))
                .hasSizeGreaterThanOrEqualTo(6);
    }

    // ---- the pages and their links ----

    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        pages.add(ROOT.resolve("bench/README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(pages).allMatch(Files::isRegularFile);
        return pages;
    }

    private static List<Link> links() {
        List<Link> links = new ArrayList<>();
        for (Path page : pages()) {
            targets(read(page)).forEach(t -> links.add(new Link(page, t)));
        }
        return links;
    }

    static List<String> targets(String markdown) {
        String text = withoutCode(markdown);
        List<String> targets = new ArrayList<>();
        for (Pattern p : List.of(INLINE, REFERENCE, AUTOLINK, HTML)) {
            Matcher m = p.matcher(text);
            while (m.find()) {
                String t = m.group(1);
                targets.add(
                        t.startsWith("<") && t.endsWith(">") ? t.substring(1, t.length() - 1) : t);
            }
        }
        return targets;
    }

    /** The text with fenced code blocks and code spans blanked out. */
    private static String withoutCode(String markdown) {
        StringBuilder out = new StringBuilder();
        String fence = null;
        for (String line : markdown.split("\n", -1)) {
            Matcher f = FENCE.matcher(line);
            if (fence == null && f.find()) {
                fence = f.group(1);
            } else if (fence != null && line.strip().startsWith(fence)) {
                fence = null;
            } else if (fence == null) {
                out.append(line);
            }
            out.append('\n');
        }
        return CODE_SPAN.matcher(out).replaceAll(" ");
    }

    /** The file or directory a relative link names, if it exists inside the repository. */
    private static Optional<Path> resolve(Link link) {
        String target = link.target();
        int cut = indexOfAny(target, '#', '?');
        String path = decode(cut < 0 ? target : target.substring(0, cut));
        if (path.isEmpty()) {
            return Optional.of(link.page());
        }
        if (path.startsWith("/") || path.startsWith("\\")) {
            return Optional.empty();
        }
        Path resolved = link.page().getParent().resolve(path).toAbsolutePath().normalize();
        if (!resolved.startsWith(ROOT)
                || resolved.startsWith(ROOT.resolve(".git"))
                || !Files.exists(resolved)) {
            return Optional.empty();
        }
        return Optional.of(resolved);
    }

    private static boolean allowedWebLink(String target) {
        try {
            URI uri = new URI(target);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            return (scheme.equals("http") || scheme.equals("https"))
                    && uri.getHost() != null
                    && ALLOWED_HOSTS.contains(uri.getHost().toLowerCase(Locale.ROOT));
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /**
     * Heading anchors as GitHub makes them: lower case, punctuation dropped, spaces as hyphens,
     * repeats numbered.
     */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        String fence = null;
        for (String line : markdown.split("\n")) {
            Matcher f = FENCE.matcher(line);
            if (fence == null && f.find()) {
                fence = f.group(1);
                continue;
            }
            if (fence != null) {
                if (line.strip().startsWith(fence)) {
                    fence = null;
                }
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = slug(h.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return anchors;
    }

    private static String slug(String heading) {
        String text =
                heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder slug = new StringBuilder();
        text.codePoints()
                .forEach(
                        cp -> {
                            if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
                                slug.appendCodePoint(cp);
                            } else if (cp == ' ') {
                                slug.append('-');
                            }
                        });
        return slug.toString();
    }

    // ---- files to search for outside names ----

    private static List<Path> filesToSearch() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        for (String dir : List.of("docs", "bench", "src/main/java", "src/test/java")) {
            try (Stream<Path> walk = Files.walk(ROOT.resolve(dir))) {
                walk.filter(Files::isRegularFile).sorted().forEach(files::add);
            }
        }
        return files;
    }

    private static String read(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static int indexOfAny(String s, char a, char b) {
        int i = s.indexOf(a);
        int j = s.indexOf(b);
        return i < 0 ? j : j < 0 ? i : Math.min(i, j);
    }
}
