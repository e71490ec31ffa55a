package dev.agentbox.sandbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import dev.agentbox.testing.Slow;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The one conformance suite every {@link SandboxProvider} passes (docs/behavior.md FS-01..FS-10,
 * PR-01..PR-09). One sandbox is shared by the whole class; each test works in its own
 * sub-directory. A capability a provider lacks is asserted as the exception path, never skipped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
public abstract class SandboxProviderContract {

    /** Unique per test class, carried as the sandbox key label: cleanup finds everything by it. */
    protected final String runKey = "contract-" + UUID.randomUUID().toString().substring(0, 8);

    protected SandboxProvider provider;
    protected SandboxHandle sb;

    /** Sandboxes made by tests besides {@link #sb}, destroyed at the end whatever happens. */
    protected final List<SandboxHandle> extra = new CopyOnWriteArrayList<>();

    /** A fresh provider instance, configured for the target. */
    protected abstract SandboxProvider newProvider();

    /**
     * True when the sandbox boundary is the workspace folder itself (paths outside are refused).
     */
    protected abstract boolean workspaceIsTheBoundary();

    /** Whether the target has git (the Debian image and the host do, BusyBox does not). */
    protected abstract boolean hasGit();

    /** A command that serves HTTP "hello" on {@code port}, run in the sandbox's workspace. */
    protected abstract String httpServerCommand(int port);

    /**
     * An HTTP server answering {@code hello} on {@code port} in a Debian image: perl-base is in
     * every Debian image, and the only server-capable tool there.
     */
    protected static String debianHttpServer(int port) {
        return "exec perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(LocalPort=>"
                + port
                + ",Listen=>5,ReuseAddr=>1) or die $!; while($c=$s->accept){<$c>; "
                + "print $c \"HTTP/1.0 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\nhello\"; close $c}'";
    }

    /** The port the HTTP server listens on inside the sandbox. */
    protected abstract int servicePort();

    /**
     * Whether a provider with the {@code ports} capability publishes a port at a URL of its own
     * ({@link SandboxPorts#published}); one that does not is reached only at its {@link
     * SandboxPorts#address}, through agentbox's proxy.
     */
    protected boolean publishesPorts() {
        return true;
    }

    /** A sandbox that can publish {@code port}; by default the shared one. */
    protected SandboxHandle sandboxForPort(int port) {
        return sb;
    }

    /** Removes a sandbox behind the provider's back (as {@code docker rm -f} would). */
    protected abstract void removeBehindTheProvidersBack(String id);

    /** Removes whatever the class left (snapshot images, ...). */
    protected void cleanupExtras() {}

    protected SandboxCreateInput baseInput() {
        return SandboxCreateInput.defaults()
                .withKey(runKey, "tenant-contract")
                .withEnv(Map.of("SANDBOX_VAR", "base", "OVERRIDE", "base"));
    }

    @BeforeAll
    void createSharedSandbox() {
        provider = newProvider();
        sb = provider.create(baseInput().withRequestedId(runKey + "-main"));
    }

    @AfterAll
    void destroyEverything() {
        List<RuntimeException> failures = new ArrayList<>();
        for (SandboxHandle h : extra) {
            try {
                h.destroy();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (sb != null) {
            sb.destroy();
        }
        if (provider != null) {
            for (ManagedSandbox m : provider.listManaged()) {
                if (runKey.equals(m.labels().get(SandboxLabels.KEY))) {
                    provider.destroy(m.id());
                }
            }
        }
        cleanupExtras();
        if (provider != null) {
            assertThat(provider.listManaged())
                    .noneMatch(m -> runKey.equals(m.labels().get(SandboxLabels.KEY)));
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    // ---------------------------------------------------------------- fs

    @Test
    @DisplayName(
            "FS-01 write keeps text, bytes and a 180000-byte file exact, creates parents, replaces, and exec sees it")
    void writeIsByteExactCreatesParentsAndReplaces() {
        sb.fs().write("fs01/text.txt", "héllo € ✓\n");
        assertThat(sb.fs().read("fs01/text.txt")).isEqualTo("héllo € ✓\n");

        byte[] small = {0, 1, 2, (byte) 250};
        sb.fs().write("fs01/small.bin", small);
        assertThat(sb.fs().readBytes("fs01/small.bin")).containsExactly(small);

        byte[] big = new byte[180_000];
        new Random(42).nextBytes(big);
        sb.fs().write("fs01/big.bin", big);
        assertThat(sb.fs().readBytes("fs01/big.bin")).isEqualTo(big);
        assertThat(sb.fs().lstat("fs01/big.bin"))
                .get()
                .extracting(s -> s.size().getAsLong())
                .isEqualTo(180_000L);

        sb.fs().write("fs01/a/b/c.txt", "first version, longer");
        sb.fs().write("fs01/a/b/c.txt", "second");
        assertThat(sb.fs().read("fs01/a/b/c.txt")).isEqualTo("second");
        assertThat(sb.process().exec("cat fs01/a/b/c.txt").stdout()).isEqualTo("second");
        assertThat(sb.fs().read(sb.workspaceRoot() + "/fs01/a/b/c.txt")).isEqualTo("second");
    }

    @Test
    @DisplayName("FS-01 reading a missing file is not-found")
    void readingAMissingFileIsNotFound() {
        assertThatThrownBy(() -> sb.fs().readBytes("fs01-missing/nothing.txt"))
                .isInstanceOf(SandboxFileNotFoundException.class)
                .extracting(e -> ((ProblemException) e).status())
                .isEqualTo(404);
    }

    @Test
    @DisplayName(
            "FS-02 list gives name, path and type; a symlink to a dir is a file; dotfiles listed; no . or ..; missing dir is an error")
    void listDoesNotFollowSymlinksAndShowsDotfiles() {
        sb.fs().mkdir("fs02/d/sub");
        sb.fs().write("fs02/d/f.txt", "x");
        sb.fs().write("fs02/d/.hidden", "x");
        assertThat(sb.process().exec("ln -s sub fs02/d/linkdir").exitCode()).isZero();

        List<FsEntry> entries = sb.fs().list("fs02/d");
        assertThat(entries)
                .extracting(FsEntry::name, FsEntry::type)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("f.txt", FsEntry.Type.FILE),
                        org.assertj.core.groups.Tuple.tuple(".hidden", FsEntry.Type.FILE),
                        org.assertj.core.groups.Tuple.tuple("sub", FsEntry.Type.DIR),
                        org.assertj.core.groups.Tuple.tuple("linkdir", FsEntry.Type.FILE));
        assertThat(entries)
                .extracting(FsEntry::path)
                .containsExactlyInAnyOrder(
                        "/workspace/fs02/d/f.txt",
                        "/workspace/fs02/d/.hidden",
                        "/workspace/fs02/d/sub",
                        "/workspace/fs02/d/linkdir");

        assertThatThrownBy(() -> sb.fs().list("fs02/missing"))
                .isInstanceOf(SandboxFileNotFoundException.class);
        assertThatThrownBy(() -> sb.fs().list("fs02/d/f.txt")).isInstanceOf(ProblemException.class);
    }

    @Test
    @DisplayName(
            "FS-03 mkdir is recursive and idempotent; remove is recursive; removing a missing path succeeds")
    void mkdirAndRemove() {
        sb.fs().mkdir("fs03/x/y/z");
        sb.fs().mkdir("fs03/x/y/z");
        assertThat(sb.fs().lstat("fs03/x/y/z"))
                .get()
                .extracting(FsStat::type)
                .isEqualTo(FsStat.Type.DIR);
        sb.fs().write("fs03/x/y/z/file", "x");

        sb.fs().remove("fs03/x");
        assertThat(sb.fs().exists("fs03/x")).isFalse();
        assertThat(sb.fs().lstat("fs03/x")).isEmpty();
        assertThatCode(() -> sb.fs().remove("fs03/never-existed")).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("FS-04 rename moves content; a missing source is an error, never silent")
    void renameMovesAndMissingSourceFails() {
        sb.fs().write("fs04/from.txt", "moved");
        sb.fs().rename("fs04/from.txt", "fs04/to/renamed.txt");
        assertThat(sb.fs().read("fs04/to/renamed.txt")).isEqualTo("moved");
        assertThat(sb.fs().exists("fs04/from.txt")).isFalse();

        assertThatThrownBy(() -> sb.fs().rename("fs04/nope.txt", "fs04/other.txt"))
                .isInstanceOf(SandboxFileNotFoundException.class);
        assertThat(sb.fs().exists("fs04/other.txt")).isFalse();
    }

    @Test
    @DisplayName(
            "FS-05 lstat of a missing path is empty; through a file (ENOTDIR) it is an error, not empty")
    void lstatMissingVersusNotADirectory() {
        assertThat(sb.fs().lstat("fs05/missing")).isEmpty();
        assertThat(sb.fs().lstat("fs05-missing-parent/missing")).isEmpty();
        sb.fs().write("fs05/file.txt", "x");
        assertThatThrownBy(() -> sb.fs().lstat("fs05/file.txt/x"))
                .isInstanceOf(SandboxOperationException.class)
                .hasMessageContaining("Not a directory");
    }

    @Test
    @DisplayName(
            "FS-06 lstat: file with type bits and size, empty file size 0, dir without size, fifo and /dev/null are other")
    void lstatTypes() {
        sb.fs().write("fs06/file.txt", "12345");
        sb.process().exec("chmod 640 fs06/file.txt");
        FsStat file = sb.fs().lstat("fs06/file.txt").orElseThrow();
        assertThat(file.type()).isEqualTo(FsStat.Type.FILE);
        assertThat(file.mode()).isEqualTo(0100640);
        assertThat(file.size()).hasValue(5);

        sb.fs().write("fs06/empty", new byte[0]);
        assertThat(sb.fs().lstat("fs06/empty").orElseThrow().size()).hasValue(0);

        FsStat dir = sb.fs().lstat("fs06").orElseThrow();
        assertThat(dir.type()).isEqualTo(FsStat.Type.DIR);
        assertThat(dir.mode() & 0170000).isEqualTo(0040000);
        assertThat(dir.size()).isEmpty();

        assertThat(sb.process().exec("mkfifo fs06/fifo").exitCode()).isZero();
        FsStat fifo = sb.fs().lstat("fs06/fifo").orElseThrow();
        assertThat(fifo.type()).isEqualTo(FsStat.Type.OTHER);
        assertThat(fifo.mode() & 0170000).isEqualTo(0010000);
        assertThat(fifo.size()).isEmpty();

        if (workspaceIsTheBoundary()) {
            assertThatThrownBy(() -> sb.fs().lstat("/dev/null"))
                    .isInstanceOf(PathOutsideSandboxException.class);
        } else {
            FsStat devNull = sb.fs().lstat("/dev/null").orElseThrow();
            assertThat(devNull.type()).isEqualTo(FsStat.Type.OTHER);
            assertThat(devNull.mode() & 0170000).isEqualTo(0020000);
        }
    }

    @Test
    @DisplayName("FS-07 live and dangling symlinks are symlinks; a dangling one does not exist")
    void symlinks() {
        sb.fs().write("fs07/target.txt", "t");
        assertThat(
                        sb.process()
                                .exec("ln -s target.txt fs07/live && ln -s nowhere fs07/dangling")
                                .exitCode())
                .isZero();
        FsStat live = sb.fs().lstat("fs07/live").orElseThrow();
        assertThat(live.type()).isEqualTo(FsStat.Type.SYMLINK);
        assertThat(live.mode() & 0170000).isEqualTo(0120000);
        assertThat(sb.fs().lstat("fs07/dangling").orElseThrow().type())
                .isEqualTo(FsStat.Type.SYMLINK);
        assertThat(sb.fs().exists("fs07/live")).isTrue();
        assertThat(sb.fs().exists("fs07/dangling")).isFalse();
        assertThat(sb.fs().read("fs07/live")).isEqualTo("t");
    }

    @Test
    @DisplayName(
            "FS-08 a path escaping the workspace is path-outside-sandbox where the workspace is the boundary")
    void pathEscapingTheWorkspace() {
        if (workspaceIsTheBoundary()) {
            assertThatThrownBy(() -> sb.fs().read("../../../etc/hosts"))
                    .isInstanceOf(PathOutsideSandboxException.class)
                    .extracting(
                            e -> ((ProblemException) e).code(),
                            e -> ((ProblemException) e).status())
                    .containsExactly(ProblemCode.PATH_OUTSIDE_SANDBOX, 400);
            assertThatThrownBy(() -> sb.fs().write("/etc/agentbox-escape", "x"))
                    .isInstanceOf(PathOutsideSandboxException.class);
            assertThat(sb.process().exec("mkdir -p fs08 && ln -s /etc fs08/out").exitCode())
                    .isZero();
            assertThatThrownBy(() -> sb.fs().read("fs08/out/hosts"))
                    .isInstanceOf(PathOutsideSandboxException.class);
            assertThatThrownBy(() -> sb.fs().write("fs08/out/agentbox-escape", "x"))
                    .isInstanceOf(PathOutsideSandboxException.class);
            // a dangling link pointing outside: writing through it would create the target
            String outside = "/tmp/agentbox-escape-" + UUID.randomUUID();
            assertThat(sb.process().exec("ln -s " + outside + " fs08/dangling-out").exitCode())
                    .isZero();
            assertThatThrownBy(() -> sb.fs().write("fs08/dangling-out", "x"))
                    .isInstanceOf(PathOutsideSandboxException.class);
            assertThat(
                            sb.process()
                                    .exec(
                                            "ln -s /tmp fs08/tmp-out && ln -s tmp-out/"
                                                    + outside.substring(5)
                                                    + " fs08/chained")
                                    .exitCode())
                    .isZero();
            assertThatThrownBy(() -> sb.fs().write("fs08/chained", "x"))
                    .isInstanceOf(PathOutsideSandboxException.class);
            assertThat(Files.exists(Path.of(outside))).isFalse();
            // the link itself is inside: it can be inspected and removed
            assertThat(sb.fs().lstat("fs08/out").orElseThrow().type())
                    .isEqualTo(FsStat.Type.SYMLINK);
            sb.fs().remove("fs08/out");
            assertThat(sb.fs().lstat("fs08/out")).isEmpty();
        } else {
            // the container is the boundary: ../../../etc/hosts is the sandbox's own file
            assertThat(sb.fs().read("../../../etc/hosts")).contains("localhost");
        }
    }

    private static byte[] tar(Object... entries) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (org.apache.commons.compress.archivers.tar.TarArchiveOutputStream out =
                new org.apache.commons.compress.archivers.tar.TarArchiveOutputStream(bytes)) {
            for (int i = 0; i < entries.length; i += 3) {
                String name = (String) entries[i];
                int mode = (Integer) entries[i + 1];
                Object body = entries[i + 2];
                org.apache.commons.compress.archivers.tar.TarArchiveEntry e;
                if (body instanceof String link) {
                    e =
                            new org.apache.commons.compress.archivers.tar.TarArchiveEntry(
                                    name,
                                    org.apache.commons.compress.archivers.tar.TarConstants
                                            .LF_SYMLINK);
                    e.setLinkName(link);
                } else {
                    e = new org.apache.commons.compress.archivers.tar.TarArchiveEntry(name);
                    if (body instanceof byte[] data) {
                        e.setSize(data.length);
                    }
                }
                e.setMode((e.getMode() & ~07777) | mode);
                out.putArchiveEntry(e);
                if (body instanceof byte[] data) {
                    out.write(data);
                }
                out.closeArchiveEntry();
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    @Test
    @DisplayName(
            "FS-09 an archive unpacks into a directory: nested directories, exact bytes, the exec bit, a symlink as a symlink")
    void writeArchiveUnpacksExactly() {
        byte[] data = {0, 1, 2, (byte) 250, '\n'};
        byte[] archive =
                tar(
                        "src/",
                        0755,
                        null,
                        "src/lib/",
                        0750,
                        null,
                        "src/lib/data.bin",
                        0644,
                        data,
                        "run.sh",
                        0755,
                        "#!/bin/sh\necho ran\n".getBytes(StandardCharsets.UTF_8),
                        "link",
                        0777,
                        "src/lib/data.bin");
        sb.fs().writeArchive("fs09/into", new java.io.ByteArrayInputStream(archive));
        assertThat(sb.fs().readBytes("fs09/into/src/lib/data.bin")).containsExactly(data);
        assertThat(sb.process().exec("cd fs09/into && ./run.sh").stdout()).isEqualTo("ran\n");
        assertThat(sb.fs().lstat("fs09/into/link").orElseThrow().type())
                .isEqualTo(FsStat.Type.SYMLINK);
        assertThat(sb.fs().readBytes("fs09/into/link")).containsExactly(data);
        assertThat(sb.fs().lstat("fs09/into/src/lib/data.bin").orElseThrow().mode() & 0777)
                .isEqualTo(0644);
    }

    @Test
    @DisplayName("FS-10 an archive entry climbing out with .. fails the write and lands nowhere")
    void writeArchiveRefusesAnEntryClimbingOut() {
        String name = "fs10-escape-" + UUID.randomUUID().toString().substring(0, 8);
        byte[] archive =
                tar("ok.txt", 0644, new byte[] {'k'}, "../" + name, 0644, new byte[] {'x'});
        assertThatThrownBy(
                        () ->
                                sb.fs()
                                        .writeArchive(
                                                "fs10/into",
                                                new java.io.ByteArrayInputStream(archive)))
                .isInstanceOf(RuntimeException.class);
        assertThat(sb.fs().exists("fs10/" + name)).isFalse();
    }

    // ---------------------------------------------------------------- processes

    @Test
    @DisplayName("PR-01 exit codes 0 and 7 are data; stdout and stderr are kept apart")
    void exitCodesAndSeparateStreams() {
        ExecResult r = sb.process().exec("printf o; printf e >&2; exit 7");
        assertThat(r).isEqualTo(new ExecResult("o", "e", 7));
        assertThat(sb.process().exec("true")).isEqualTo(new ExecResult("", "", 0));
    }

    @Test
    @DisplayName(
            "PR-02 per-command env merges over the sandbox env; cwd is relative to the workspace; env.set reaches later commands")
    void envAndCwd() {
        assertThat(
                        sb.process()
                                .exec(
                                        "echo \"$SANDBOX_VAR $OVERRIDE\"",
                                        ProcessOptions.defaults()
                                                .withEnv(Map.of("OVERRIDE", "call")))
                                .stdout())
                .isEqualTo("base call\n");
        assertThat(sb.process().exec("echo \"$OVERRIDE\"").stdout()).isEqualTo("base\n");

        sb.fs().mkdir("pr02/sub");
        assertThat(
                        sb.process()
                                .exec("pwd", ProcessOptions.defaults().withCwd("pr02/sub"))
                                .stdout()
                                .strip())
                .isEqualTo(sb.workspaceRoot() + "/pr02/sub");
        assertThat(sb.process().exec("pwd").stdout().strip()).isEqualTo(sb.workspaceRoot());

        sb.env().set(Map.of("LATER", "set-later"));
        assertThat(sb.process().exec("echo $LATER").stdout()).isEqualTo("set-later\n");
        SandboxProcess p = sb.process().spawn("echo $LATER");
        assertThat(collect(p)).isEqualTo("set-later\n");
    }

    @Test
    @DisplayName("a cwd that does not exist is not-found, for exec and spawn")
    void missingCwd() {
        ProcessOptions o = ProcessOptions.defaults().withCwd("no-such-dir/below");
        assertThatThrownBy(() -> sb.process().exec("pwd", o))
                .isInstanceOf(SandboxFileNotFoundException.class);
        assertThatThrownBy(() -> sb.process().spawn("pwd", o))
                .isInstanceOf(SandboxFileNotFoundException.class);
    }

    @Test
    @DisplayName("exec timeout kills the command and reports exit 124")
    void execTimeoutKills() {
        long t0 = System.nanoTime();
        ExecResult r =
                sb.process()
                        .exec(
                                "echo started; sleep 30; echo never",
                                ProcessOptions.defaults().withTimeout(Duration.ofMillis(1000)));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(r.exitCode()).isEqualTo(ExecResult.TIMED_OUT);
        assertThat(r.stdout()).isEqualTo("started\n");
        assertThat(r.stderr()).contains("timed out after 1000ms");
    }

    @Test
    @DisplayName(
            "PR-03 streaming is causal: the second line comes only after the test, having seen the first, opens the gate")
    void streamingIsCausal() throws Exception {
        sb.fs().mkdir("pr03");
        SandboxProcess p =
                sb.process()
                        .spawn(
                                "echo first; while [ ! -e pr03/gate ]; do echo . >> pr03/waits; sleep 0.05; done; echo second; echo err-line >&2");
        StringBuffer out = new StringBuffer();
        StringBuffer err = new StringBuffer();
        try (AutoCloseable sub =
                p.subscribe(
                        c ->
                                (c.stream() == OutputChunk.Stream.STDOUT ? out : err)
                                        .append(c.text()))) {
            await().atMost(Duration.ofSeconds(20)).until(() -> out.toString().equals("first\n"));
            // The process goes round its wait a few more times after the first line arrived:
            // anything it printed before waiting would have arrived by now too.
            long waits = heartbeatSize("pr03/waits");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> heartbeatSize("pr03/waits") >= waits + 3 * 2);
            assertThat(out.toString()).isEqualTo("first\n");
            assertThat(p.onExit()).isNotDone();
            sb.fs().write("pr03/gate", "open");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> out.toString().equals("first\nsecond\n"));
            assertThat(p.waitFor(Duration.ofSeconds(20))).hasValue(0);
            assertThat(err.toString()).isEqualTo("err-line\n");
        }
        // a late subscriber still sees everything, then the exit
        assertThat(collect(p)).isEqualTo("first\nsecond\n");
    }

    @Test
    @DisplayName(
            "PR-04 a '€' split across chunks is reassembled; a truncated UTF-8 tail becomes U+FFFD, not dropped")
    void utf8AcrossChunks() {
        SandboxProcess p =
                sb.process()
                        .spawn(
                                "printf '\\342\\202'; sleep 0.3; printf '\\254\\n'; sleep 0.2; printf 'a\\342\\202'");
        List<String> chunks = new CopyOnWriteArrayList<>();
        p.subscribe(c -> chunks.add(c.text()));
        assertThat(p.waitFor(Duration.ofSeconds(20))).hasValue(0);
        assertThat(String.join("", chunks)).isEqualTo("€\na\uFFFD");
        assertThat(chunks).doesNotContain("\uFFFD\n");

        ExecResult r = sb.process().exec("printf 'a\\342\\202'; printf 'b\\342\\202' >&2");
        assertThat(r.stdout()).isEqualTo("a\uFFFD");
        assertThat(r.stderr()).isEqualTo("b\uFFFD");
    }

    @Test
    @DisplayName(
            "PR-05 stdin echoes back where writable; elsewhere it is the unsupported-capability error, never a silent no-op")
    void stdin() throws Exception {
        SandboxProcess p = sb.process().spawn("cat; echo done");
        try {
            if (sb.capabilities().writableStdin()) {
                StringBuffer out = new StringBuffer();
                p.subscribe(c -> out.append(c.text()));
                p.writeStdin("ping €\n");
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> out.toString().equals("ping €\n"));
                p.closeStdin();
                assertThat(p.waitFor(Duration.ofSeconds(10))).hasValue(0);
                assertThat(out.toString()).isEqualTo("ping €\ndone\n");
            } else {
                assertUnsupported(() -> p.writeStdin("ping\n"), Capability.WRITABLE_STDIN);
                assertUnsupported(p::closeStdin, Capability.WRITABLE_STDIN);
            }
        } finally {
            p.kill();
        }
    }

    @Test
    @DisplayName(
            "PR-06 kill takes backgrounded grandchildren too: none of them is left and the heartbeat stops growing")
    @Slow
    void killTakesTheWholeProcessGroup() throws Exception {
        assertThat(provider.capabilities().killableProcesses()).isTrue();
        // Unique: the local provider's processes share the host with other test runs.
        String dir = "pr06-" + UUID.randomUUID().toString().substring(0, 8);
        String hb = dir + "/hb";
        sb.fs().mkdir(dir);
        SandboxProcess p =
                sb.process()
                        .spawn(
                                "sh -c '(while true; do echo beat >> "
                                        + hb
                                        + "; sleep 0.2; done) & while true; do sleep 1; done' & sleep 1000");
        await().atMost(Duration.ofSeconds(20)).until(() -> heartbeatSize(hb) > 10);
        long before = heartbeatSize(hb);
        await().atMost(Duration.ofSeconds(20))
                .alias("heartbeat grows before the kill")
                .until(() -> heartbeatSize(hb) > before);
        assertThat(processesMentioning(dir)).as("the spawned shells before the kill").isPositive();

        p.kill();
        assertThat(p.waitFor(Duration.ofSeconds(15))).isPresent();
        // The kill is done when no process of the group is left (the heartbeat's writer among
        // them); then the heartbeat must not grow over five of its periods.
        await().atMost(Duration.ofSeconds(15))
                .alias("no process of the killed group is left")
                .until(() -> processesMentioning(dir) == 0);
        long settled = heartbeatSize(hb);
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .alias("heartbeat after kill")
                .until(() -> heartbeatSize(hb) == settled);
    }

    @Test
    @DisplayName(
            "PR-10 a chosen signal reaches the process group once: a trap for INT runs and sets the exit code; signalling an exited process is quiet")
    void aChosenSignalReachesTheGroupAndMayBeTrapped() throws Exception {
        assertThat(provider.capabilities().killableProcesses()).isTrue();
        SandboxProcess p =
                sb.process()
                        .spawn(
                                "trap 'echo got-int; exit 5' INT; echo ready; while :; do sleep 0.1; done");
        StringBuffer out = new StringBuffer();
        p.subscribe(c -> out.append(c.text()));
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> out.toString().contains("ready"));
            p.signal(ProcessSignal.INT);
            assertThat(p.waitFor(Duration.ofSeconds(15))).hasValue(5);
            assertThat(out.toString()).contains("got-int");
            assertThatCode(() -> p.signal(ProcessSignal.USR1)).doesNotThrowAnyException();
        } finally {
            p.kill();
        }
    }

    @Test
    @DisplayName("PR-07 killing an exited process is quiet; a kill right after spawn still kills")
    void killEdgeCases() throws Exception {
        SandboxProcess done = sb.process().spawn("echo bye");
        assertThat(done.waitFor(Duration.ofSeconds(20))).hasValue(0);
        assertThatCode(done::kill).doesNotThrowAnyException();
        assertThatCode(done::kill).doesNotThrowAnyException();

        String dir = "pr07-" + UUID.randomUUID().toString().substring(0, 8);
        sb.fs().mkdir(dir);
        SandboxProcess p =
                sb.process().spawn("while true; do echo beat >> " + dir + "/hb; sleep 0.1; done");
        p.kill();
        assertThat(p.waitFor(Duration.ofSeconds(15))).isPresent();
        await().atMost(Duration.ofSeconds(15)).until(() -> processesMentioning(dir) == 0);
        long settled = heartbeatSize(dir + "/hb");
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .until(() -> heartbeatSize(dir + "/hb") == settled);
    }

    @Test
    @DisplayName(
            "PR-08 capabilities are the measured truth; snapshot/fork work where claimed, else unsupported-capability")
    void capabilitiesSnapshotsAndFork() {
        SandboxCapabilities caps = provider.capabilities();
        // A handle may offer more than its provider promises for every sandbox (a Docker sandbox
        // with a channel has a writable stdin), never less.
        assertThat(sb.capabilities())
                .usingRecursiveComparison()
                .ignoringFields("writableStdin")
                .isEqualTo(caps);
        if (caps.writableStdin()) {
            assertThat(sb.capabilities().writableStdin()).isTrue();
        }
        assertThat(caps.fs()).isTrue();
        assertThat(caps.exec()).isTrue();
        assertThat(caps.backgroundProcesses()).isTrue();
        sb.fs().write("pr08/state.txt", "before snapshot");

        if (caps.snapshots()) {
            SnapshotRef ref = sb.snapshot(Optional.of("contract"));
            try {
                SandboxHandle restored = provider.restoreSnapshot(ref.id(), baseInput());
                extra.add(restored);
                assertThat(restored.id()).isNotEqualTo(sb.id());
                assertThat(restored.fs().read("pr08/state.txt")).isEqualTo("before snapshot");
                restored.destroy();
            } finally {
                provider.deleteSnapshot(ref.id());
            }
            assertThatThrownBy(() -> provider.restoreSnapshot(ref.id(), baseInput()))
                    .isInstanceOf(ProblemException.class)
                    .extracting(e -> ((ProblemException) e).status())
                    .isEqualTo(404);
        } else {
            assertUnsupported(() -> sb.snapshot(Optional.empty()), Capability.SNAPSHOTS);
            assertUnsupported(
                    () -> provider.restoreSnapshot("any", baseInput()), Capability.SNAPSHOTS);
        }
        if (caps.fork()) {
            SandboxHandle fork = sb.fork();
            extra.add(fork);
            assertThat(fork.id()).isNotEqualTo(sb.id());
            assertThat(fork.fs().read("pr08/state.txt")).isEqualTo("before snapshot");
            fork.fs().write("pr08/state.txt", "changed in the fork");
            assertThat(sb.fs().read("pr08/state.txt")).isEqualTo("before snapshot");
            fork.destroy();
        } else {
            assertUnsupported(sb::fork, Capability.FORK);
        }
    }

    @Test
    @DisplayName(
            "PR-09 resume by id works; a sandbox removed behind the provider's back resumes as gone; destroy is idempotent")
    void resumeAndGone() {
        SandboxHandle again = provider.resume(sb.id()).orElseThrow();
        sb.fs().write("pr09/mark.txt", "still here");
        assertThat(again.process().exec("cat pr09/mark.txt").stdout()).isEqualTo("still here");
        assertThat(provider.resume("never-existed-" + UUID.randomUUID())).isEmpty();

        SandboxHandle doomed = provider.create(baseInput().withRequestedId(runKey + "-doomed"));
        extra.add(doomed);
        assertThat(provider.resume(doomed.id())).isPresent();
        removeBehindTheProvidersBack(doomed.id());
        assertThat(provider.resume(doomed.id())).isEmpty();
        assertThatThrownBy(() -> doomed.process().exec("true"))
                .isInstanceOf(ProblemException.class)
                .extracting(e -> ((ProblemException) e).status())
                .isEqualTo(404);
        assertThatCode(() -> provider.destroy(doomed.id())).doesNotThrowAnyException();
        assertThatCode(doomed::destroy).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("create with a requested id that is taken is 409 sandbox-exists")
    void requestedIdTaken() {
        assertThatThrownBy(() -> provider.create(baseInput().withRequestedId(runKey + "-main")))
                .isInstanceOf(SandboxExistsException.class)
                .extracting(e -> ((ProblemException) e).status())
                .isEqualTo(409);
    }

    @Test
    @DisplayName("listManaged finds the sandbox with its labels and creation time")
    void listManaged() {
        ManagedSandbox m =
                provider.listManaged().stream()
                        .filter(x -> x.id().equals(sb.id()))
                        .findFirst()
                        .orElseThrow();
        assertThat(m.labels())
                .containsEntry(SandboxLabels.MANAGED, "true")
                .containsEntry(SandboxLabels.KEY, runKey)
                .containsEntry(SandboxLabels.TENANT, "tenant-contract");
        assertThat(m.createdAt())
                .isBetween(
                        Instant.now().minus(Duration.ofMinutes(30)), Instant.now().plusSeconds(5));
    }

    @Test
    @DisplayName(
            "git desugars to git commands (clone with ref and depth, status, add, commit, branch); without git it is an error")
    void git() {
        if (!hasGit()) {
            assertThatThrownBy(() -> sb.git().status(Optional.empty()))
                    .isInstanceOf(SandboxOperationException.class)
                    .hasMessageContaining("git status failed");
            return;
        }
        ExecResult init =
                sb.process()
                        .exec(
                                "set -e; mkdir -p git/origin; cd git/origin; git init -q -b main; "
                                        + "git config user.email t@example.com; git config user.name t; echo one > a.txt; git add a.txt; "
                                        + "git commit -q -m one; git checkout -q -b feature; echo two > b.txt; git add b.txt; git commit -q -m two");
        assertThat(init.exitCode()).as(init.stderr()).isZero();
        String url = "file://" + sb.workspaceRoot() + "/git/origin";
        sb.git().clone(url, Optional.of("git/clone"), Optional.of("feature"), OptionalInt.of(1));
        assertThat(sb.git().branch(Optional.of("git/clone"))).isEqualTo("feature");
        assertThat(sb.process().exec("git -C git/clone rev-list --count HEAD").stdout().strip())
                .isEqualTo("1");
        assertThat(sb.git().status(Optional.of("git/clone"))).isEmpty();
        sb.fs().write("git/clone/c.txt", "three");
        assertThat(sb.git().status(Optional.of("git/clone"))).contains("?? c.txt");
        sb.git().add(List.of("c.txt"), Optional.of("git/clone"));
        sb.git().commit("add c", Optional.of("git/clone"));
        assertThat(sb.git().status(Optional.of("git/clone"))).isEmpty();
        assertThat(sb.process().exec("git -C git/clone log -1 --format=%s").stdout().strip())
                .isEqualTo("add c");
        assertThatThrownBy(
                        () ->
                                sb.git()
                                        .clone(
                                                "file:///nonexistent/repo",
                                                Optional.of("git/bad"),
                                                Optional.empty(),
                                                OptionalInt.empty()))
                .isInstanceOf(SandboxOperationException.class);
    }

    @Test
    @DisplayName(
            "ports: a published port has a URL the host reaches; its address is reachable too; without the capability, no URL and unsupported-capability")
    void ports() throws Exception {
        int port = servicePort();
        if (!provider.capabilities().ports()) {
            assertThat(sb.ports().published(port)).isEmpty();
            assertUnsupported(() -> sb.ports().address(port), Capability.PORTS);
            return;
        }
        SandboxHandle h = sandboxForPort(port);
        h.fs().write("ports/index.html", "hello");
        SandboxProcess server =
                h.process()
                        .spawn(httpServerCommand(port), ProcessOptions.defaults().withCwd("ports"));
        try {
            java.net.InetSocketAddress at = h.ports().address(port);
            assertThat(at.getPort()).isEqualTo(port);
            String url;
            if (publishesPorts()) {
                SandboxPorts.Channel ch = h.ports().published(port).orElseThrow();
                assertThat(ch.url()).startsWith("http://");
                url = ch.url();
            } else { // reached only through agentbox's proxy, which connects to the address
                assertThat(h.ports().published(port)).isEmpty();
                url = "http://" + at.getAddress().getHostAddress() + ":" + port;
            }
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(
                            () -> {
                                try (java.net.Socket s = new java.net.Socket()) {
                                    s.connect(at, 2000);
                                    return true;
                                }
                            });
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(
                            () -> {
                                HttpResponse<String> resp =
                                        http.send(
                                                HttpRequest.newBuilder(
                                                                URI.create(url + "/index.html"))
                                                        .timeout(Duration.ofSeconds(2))
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofString());
                                return resp.statusCode() == 200 && resp.body().contains("hello");
                            });
        } finally {
            server.kill();
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * How many processes the sandbox sees whose command line contains {@code marker}. The check's
     * own shell never counts: its pattern brackets the marker's first character.
     */
    protected int processesMentioning(String marker) {
        String pattern = "[" + marker.charAt(0) + "]" + marker.substring(1);
        ExecResult r =
                sb.process()
                        .exec(
                                "for f in /proc/[0-9]*/cmdline; do { tr '\\000' ' ' < \"$f\"; } 2>/dev/null; echo; done"
                                        + " | grep -c -- '"
                                        + pattern
                                        + "' || true");
        return Integer.parseInt(r.stdout().strip());
    }

    protected long heartbeatSize(String path) {
        return sb.fs()
                .lstat(path)
                .flatMap(
                        s ->
                                s.size().isPresent()
                                        ? Optional.of(s.size().getAsLong())
                                        : Optional.empty())
                .orElse(0L);
    }

    protected static String collect(SandboxProcess p) {
        StringBuffer out = new StringBuffer();
        p.subscribe(
                c -> {
                    if (c.stream() == OutputChunk.Stream.STDOUT) {
                        out.append(c.text());
                    }
                });
        assertThat(p.waitFor(Duration.ofSeconds(30))).isPresent();
        return out.toString();
    }

    protected void assertUnsupported(
            org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Capability c) {
        assertThatThrownBy(call)
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessage(
                        "Sandbox provider \""
                                + provider.name()
                                + "\" does not support the \""
                                + c.wireName()
                                + "\" capability.")
                .satisfies(
                        e -> {
                            assertThat(((UnsupportedCapabilityException) e).capability())
                                    .isEqualTo(c);
                            assertThat(((UnsupportedCapabilityException) e).provider())
                                    .isEqualTo(provider.name());
                        });
    }

    protected static Set<String> names(List<FsEntry> entries) {
        return entries.stream().map(FsEntry::name).collect(Collectors.toSet());
    }

    protected static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
