package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules of a {@code local} source without any sandbox: where a path may lead (WS-10), which
 * entries are copied and how (WS-11), and the bounds (WS-12). Every refusal is {@code 400
 * invalid-request} naming {@code workspace.source.path} and no host path but the one sent.
 */
class LocalSourcesTest {

    @TempDir Path tmp;

    private Path root() throws IOException {
        return Files.createDirectories(tmp.resolve("root"));
    }

    private LocalSources sources(long maxBytes, long maxFiles) throws IOException {
        return new LocalSources(true, Optional.of(root()), maxBytes, maxFiles);
    }

    private LocalSources sources() throws IOException {
        return sources(LocalSources.DEFAULT_MAX_BYTES, LocalSources.DEFAULT_MAX_FILES);
    }

    private static void assertRefused(ThrowingCallable call, String field, String detailPart) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(p.extensions()).containsEntry("field", field);
                            assertThat(p.getMessage()).contains(detailPart);
                        });
    }

    @Test
    void aRelativePathOrAnAbsoluteOneUnderTheRootResolvesToTheRealDirectory() throws IOException {
        Path project = Files.createDirectories(root().resolve("team/project"));
        LocalSources s = sources();
        assertThat(s.resolve("team/project")).isEqualTo(project.toRealPath());
        assertThat(s.resolve(project.toString())).isEqualTo(project.toRealPath());
        assertThat(s.resolve("team/other/../project")).isEqualTo(project.toRealPath());
        assertThat(s.resolve(".")).isEqualTo(root().toRealPath());
    }

    @Test
    void dotDotEscapesAndAbsolutePathsOutsideTheRootAreRefusedAtParseTime() throws IOException {
        Files.createDirectories(tmp.resolve("outside"));
        LocalSources s = sources();
        assertRefused(() -> s.checkAccepted("../outside"), "workspace.source.path", "leaves");
        assertRefused(() -> s.checkAccepted("a/../../outside"), "workspace.source.path", "leaves");
        assertRefused(
                () -> s.checkAccepted(tmp.resolve("outside").toString()),
                "workspace.source.path",
                "leaves");
        assertRefused(() -> s.checkAccepted("/etc"), "workspace.source.path", "leaves");
    }

    @Test
    void aSymlinkedDirectoryLeadingOutOfTheRootIsRefusedWithoutNamingItsTarget()
            throws IOException {
        Path secret = Files.createDirectories(tmp.resolve("secret-place"));
        Files.createSymbolicLink(root().resolve("link"), secret);
        LocalSources s = sources();
        assertThatThrownBy(() -> s.resolve("link"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.getMessage()).contains("leads out");
                            assertThat(p.getMessage()).doesNotContain("secret-place");
                            assertThat(p.getMessage()).doesNotContain(tmp.toString());
                        });
    }

    @Test
    void aMissingPathOrAFileIsRefusedWhenTheSandboxIsMade() throws IOException {
        Files.writeString(root().resolve("file.txt"), "x");
        LocalSources s = sources();
        assertRefused(() -> s.resolve("nope"), "workspace.source.path", "does not exist");
        assertRefused(() -> s.resolve("file.txt"), "workspace.source.path", "is not a directory");
    }

    @Test
    void disabledOrWithoutARootEveryLocalSourceIsRefused() throws IOException {
        Files.createDirectories(root().resolve("p"));
        assertRefused(
                () -> LocalSources.disabled().checkAccepted("p"),
                "workspace.source.type",
                "disabled");
        LocalSources noRoot = new LocalSources(true, Optional.empty(), 10, 10);
        assertRefused(
                () -> noRoot.checkAccepted("p"),
                "workspace.source.type",
                "agentbox.sources.local.root is not set");
    }

    @Test
    void theParserAppliesThePathRulesAndTheDisabledSwitch() {
        SandboxSpecParser enabledNoRoot = new SandboxSpecParser(1_800_000, true);
        assertRefused(
                () ->
                        enabledNoRoot.parse(
                                jakarta.json.Json.createReader(
                                                new java.io.StringReader(
                                                        "{\"workspace\":{\"source\":{\"type\":\"local\",\"path\":\"p\"}}}"))
                                        .readValue()),
                "workspace.source.type",
                "is not set");
    }

    // ---------------------------------------------------------------- the archive

    private Map<String, TarArchiveEntry> entries(LocalSourceArchive a, Map<String, byte[]> bodies)
            throws IOException {
        Map<String, TarArchiveEntry> out = new LinkedHashMap<>();
        try (InputStream in = a.open();
                TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                out.put(e.getName(), e);
                if (e.isFile()) {
                    bodies.put(e.getName(), tar.readAllBytes());
                }
            }
        }
        return out;
    }

    @Test
    void filesNestedDirectoriesModesAndInsideSymlinksArePackedExactly() throws IOException {
        Path src = Files.createDirectories(root().resolve("proj"));
        Files.createDirectories(src.resolve("a/b"));
        byte[] bytes = {0, 1, 2, (byte) 250, '\n'};
        Files.write(src.resolve("a/b/data.bin"), bytes);
        Path script = Files.writeString(src.resolve("run.sh"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        Files.createSymbolicLink(src.resolve("link"), Path.of("a/b/data.bin"));
        Map<String, byte[]> bodies = new LinkedHashMap<>();
        try (LocalSourceArchive a = LocalSourceArchive.pack(sources().resolve("proj"), 1000, 10)) {
            assertThat(a.files()).isEqualTo(5);
            assertThat(a.bytes()).isEqualTo(bytes.length + Files.size(script));
            Map<String, TarArchiveEntry> e = entries(a, bodies);
            assertThat(e.keySet())
                    .containsExactlyInAnyOrder("a/", "a/b/", "a/b/data.bin", "run.sh", "link");
            assertThat(bodies.get("a/b/data.bin")).isEqualTo(bytes);
            assertThat(e.get("run.sh").getMode() & 0777).isEqualTo(0750);
            assertThat(e.get("a/b/").isDirectory()).isTrue();
            assertThat(e.get("link").isSymbolicLink()).isTrue();
            assertThat(e.get("link").getLinkName()).isEqualTo("a/b/data.bin");
        }
    }

    @Test
    void aSymlinkLeadingOutOfTheCopiedDirectoryOrAbsoluteIsRefused() throws IOException {
        Path src = Files.createDirectories(root().resolve("proj"));
        Files.writeString(root().resolve("beside.txt"), "x");
        Files.createSymbolicLink(src.resolve("up"), Path.of("../beside.txt"));
        LocalSources s = sources();
        assertRefused(
                () -> LocalSourceArchive.pack(s.resolve("proj"), 1000, 100),
                "workspace.source.path",
                "symlink that is absolute or leads out of the copied directory: up");
        Files.delete(src.resolve("up"));
        Files.createSymbolicLink(src.resolve("abs"), src.resolve("x"));
        assertRefused(
                () -> LocalSourceArchive.pack(s.resolve("proj"), 1000, 100),
                "workspace.source.path",
                "abs");
        Files.delete(src.resolve("abs"));
        // A link through another link that leaves: caught by the real path.
        Files.createDirectories(src.resolve("d"));
        Files.createSymbolicLink(src.resolve("d/hop"), Path.of(".."));
        Files.createSymbolicLink(src.resolve("via"), Path.of("d/hop/../beside.txt"));
        assertRefused(
                () -> LocalSourceArchive.pack(s.resolve("proj"), 1000, 100),
                "workspace.source.path",
                "via");
    }

    @Test
    void moreBytesOrMoreEntriesThanTheLimitIsRefusedWithTheCeiling() throws IOException {
        Path src = Files.createDirectories(root().resolve("big"));
        Files.write(src.resolve("a"), new byte[600]);
        Files.write(src.resolve("b"), new byte[600]);
        LocalSources s = sources();
        assertThatThrownBy(() -> LocalSourceArchive.pack(s.resolve("big"), 1000, 100))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(p.extensions())
                                    .containsEntry("field", "workspace.source.path")
                                    .containsEntry("ceiling", 1000L);
                            assertThat(p.getMessage())
                                    .contains("more than 1000 bytes")
                                    .contains("agentbox.sources.local.max-bytes");
                        });
        assertThatThrownBy(() -> LocalSourceArchive.pack(s.resolve("big"), 10_000, 1))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.extensions()).containsEntry("ceiling", 1L);
                            assertThat(p.getMessage()).contains("more than 1 entries");
                        });
        try (LocalSourceArchive exact = LocalSourceArchive.pack(s.resolve("big"), 1200, 2)) {
            assertThat(exact.bytes()).isEqualTo(1200);
        }
    }

    @Test
    void aFifoIsRefusedRatherThanBlockingTheCopy() throws Exception {
        Path src = Files.createDirectories(root().resolve("fifo"));
        Process p = new ProcessBuilder("mkfifo", src.resolve("pipe").toString()).start();
        assertThat(p.waitFor()).isZero();
        assertRefused(
                () -> LocalSourceArchive.pack(sources().resolve("fifo"), 1000, 100),
                "workspace.source.path",
                "FIFO, socket or device, which cannot be copied: pipe");
    }

    @Test
    void theTemporaryArchiveIsDeletedOnClose() throws IOException {
        Path src = Files.createDirectories(root().resolve("p"));
        Files.writeString(src.resolve("f"), "hello", StandardCharsets.UTF_8);
        LocalSourceArchive a = LocalSourceArchive.pack(sources().resolve("p"), 1000, 100);
        try (InputStream in = a.open()) {
            assertThat(in.readAllBytes()).isNotEmpty();
        }
        a.close();
        assertThatThrownBy(a::open).isInstanceOf(java.io.UncheckedIOException.class);
    }
}
