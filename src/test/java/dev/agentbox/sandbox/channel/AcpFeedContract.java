package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ACP feeder, {@code agentbox-sandboxd acp-feed DIR} (docs/sandbox-channel.md, "The ACP
 * feeder"), compiled on this host and run as a process whose stdout the test reads as the agent
 * would. Messages are written as the server writes them: a temp file {@code .agentbox-sandboxd.*}
 * beside the target, renamed over it. The subclasses run it against the image's build and against a
 * sanitizer build; a sanitizer report on its stderr fails the case.
 */
@Timeout(60)
abstract class AcpFeedContract {

    /** The largest message the feeder copies (ACP_FEED_MAX_BYTES in acp_feed.c). */
    static final long MAX_BYTES = 64L * 1024 * 1024;

    @TempDir Path tmp;

    private final List<Process> started = new ArrayList<>();

    abstract boolean sanitized();

    @AfterEach
    void stopAndCheckReports() throws Exception {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(HostSandboxd.sanitizerReports(stderr())).as("sanitizer reports").isEmpty();
    }

    private Path dir() {
        return tmp.resolve("feed");
    }

    private String stderr() throws IOException {
        Path err = tmp.resolve("feed.err");
        return Files.exists(err) ? Files.readString(err) : "";
    }

    /** {@code acp-feed DIR}, its stdout a pipe to the test, its stderr a file. */
    private Process feed() throws IOException {
        ProcessBuilder pb =
                new ProcessBuilder(
                                HostSandboxd.binary(sanitized()).toString(),
                                "acp-feed",
                                dir().toString())
                        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                        .redirectError(tmp.resolve("feed.err").toFile());
        if (sanitized()) {
            HostSandboxd.sanitizerOptions(pb);
        }
        Process p = pb.start();
        started.add(p);
        return p;
    }

    /** As the channel's write does it: a temp file in the same directory, renamed over NAME. */
    private void write(String name, String content) throws IOException {
        Files.createDirectories(dir());
        Path temp = Files.createTempFile(dir(), ".agentbox-sandboxd.", "");
        Files.writeString(temp, content);
        Files.move(
                temp,
                dir().resolve(name),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    private void end() throws IOException {
        write("end", "");
    }

    private static BufferedReader lines(Process p) {
        return new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Everything up to EOF, then the exit status (which must come soon after). */
    private static String rest(BufferedReader out, Process p) throws Exception {
        StringBuilder sb = new StringBuilder();
        char[] buf = new char[8192];
        for (int n; (n = out.read(buf)) >= 0; ) {
            sb.append(buf, 0, n);
        }
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("the feeder ended").isTrue();
        assertThat(p.exitValue()).as("exit status").isZero();
        return sb.toString();
    }

    @Test
    void filesWrittenBeforeAndAfterTheStartGoOutOnceEachInNameOrder() throws Exception {
        write("q-000002", "{\"id\":2}");
        write("q-000001", "{\"id\":1}");
        write("a-ff", "{\"id\":\"answer\"}");
        Process p = feed();
        BufferedReader out = lines(p);
        assertThat(out.readLine()).isEqualTo("{\"id\":\"answer\"}");
        assertThat(out.readLine()).isEqualTo("{\"id\":1}");
        assertThat(out.readLine()).isEqualTo("{\"id\":2}");
        write("q-000003", "{\"id\":3}");
        assertThat(out.readLine()).as("a file written later").isEqualTo("{\"id\":3}");
        write("q-000004", "{\"id\":4}");
        end();
        assertThat(rest(out, p)).isEqualTo("{\"id\":4}\n");
    }

    @Test
    void aNameWrittenASecondTimeIsNotSentAgain() throws Exception {
        Process p = feed();
        BufferedReader out = lines(p);
        write("q-000001", "first");
        assertThat(out.readLine()).isEqualTo("first");
        write("q-000001", "second"); // a server that took the run over writes it again
        write("q-000002", "next");
        assertThat(out.readLine()).isEqualTo("next");
        end();
        assertThat(rest(out, p)).isEmpty();
    }

    @Test
    void tempFilesAndOtherNamesAreLeftAlone() throws Exception {
        Files.createDirectories(dir());
        Files.writeString(dir().resolve(".agentbox-sandboxd.Ab12Cd"), "temp");
        Files.writeString(dir().resolve("Q-1"), "upper case");
        Files.writeString(dir().resolve("q_1"), "underscore");
        Files.writeString(dir().resolve("q-1.json"), "dot");
        Files.writeString(dir().resolve("a".repeat(65)), "65 characters");
        Files.createDirectory(dir().resolve("q-dir"));
        Files.createSymbolicLink(dir().resolve("q-link"), dir().resolve("q-1.json"));
        write("z".repeat(64), "64 characters");
        write("0-9", "digits");
        end();
        Process p = feed();
        assertThat(rest(lines(p), p)).isEqualTo("digits\n64 characters\n");
    }

    @Test
    void endSendsWhatIsThereThenClosesStdout() throws Exception {
        Process p = feed();
        BufferedReader out = lines(p);
        write("q-000001", "one");
        assertThat(out.readLine()).isEqualTo("one");
        // Written while it runs, each may be found by its own scan: only their order of writing
        // is certain, and end comes last.
        write("q-000002", "two");
        write("q-000003", "three");
        end();
        assertThat(rest(out, p)).as("then EOF").isEqualTo("two\nthree\n");
        assertThat(stderr()).isEmpty();
    }

    @Test
    void theReaderLeavingEndsTheFeederWithNoFileComing() throws Exception {
        Process p = feed();
        // The directory is made 0700 by the feeder; once it exists the feeder waits in poll.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.isDirectory(dir()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir())))
                .isEqualTo("rwx------");
        Thread.sleep(300); // past a scan or two: it waits now
        assertThat(p.isAlive()).isTrue();
        long closed = System.nanoTime();
        p.getInputStream().close(); // the agent exited: its stdin's read end is gone
        // poll reports POLLERR at once; without it the feeder would wait for ever.
        assertThat(p.waitFor(2, TimeUnit.SECONDS)).as("the feeder ended").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed)).isLessThan(1500);
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void aPipelineToAnAgentThatReadsOneLineReturns() throws Exception {
        write("q-000001", "first\nsecond\n");
        ProcessBuilder pb =
                new ProcessBuilder(
                                "sh",
                                "-c",
                                "\"$0\" acp-feed \"$1\" | head -n1; echo \"status $?\"",
                                HostSandboxd.binary(sanitized()).toString(),
                                dir().toString())
                        .redirectError(tmp.resolve("feed.err").toFile());
        if (sanitized()) {
            HostSandboxd.sanitizerOptions(pb);
        }
        Process sh = pb.start();
        started.add(sh);
        String out = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(sh.waitFor(5, TimeUnit.SECONDS)).as("the pipeline returned").isTrue();
        assertThat(out).isEqualTo("first\nstatus 0\n");
    }

    @Test
    void aFileOverTheLimitIsSkippedAndOneAtTheLimitGoesOutWhole() throws Exception {
        Files.createDirectories(dir());
        sparse("q-000001", MAX_BYTES + 1);
        sparse("q-000002", MAX_BYTES);
        write("q-000003", "after");
        end();
        Process p = feed();
        InputStream in = p.getInputStream();
        byte[] buf = new byte[64 * 1024];
        long zeros = 0;
        StringBuilder tail = new StringBuilder();
        for (int n; (n = in.read(buf)) >= 0; ) {
            for (int i = 0; i < n; i++) {
                if (buf[i] == 0 && tail.isEmpty()) {
                    zeros++;
                } else {
                    tail.append((char) buf[i]);
                }
            }
        }
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(zeros).as("the file at the limit, whole").isEqualTo(MAX_BYTES);
        assertThat(tail.toString()).isEqualTo("\nafter\n");
        assertThat(stderr())
                .isEqualTo(
                        "agentbox-sandboxd acp-feed: "
                                + dir().resolve("q-000001")
                                + " skipped: 67108865 bytes, over 67108864\n");
    }

    private void sparse(String name, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(dir().resolve(name).toFile(), "rw")) {
            f.setLength(size);
        }
    }

    @Test
    void aMessageGetsANewlineOnlyWhenItLacksOne() throws Exception {
        write("q-000001", "{\"no\":\"newline\"}");
        write("q-000002", "{\"has\":\"newline\"}\n");
        write("q-000003", "");
        write("q-000004", "x".repeat(200_000)); // over the 64 KiB chunk
        end();
        Process p = feed();
        assertThat(rest(lines(p), p))
                .as("an empty file sends nothing")
                .isEqualTo(
                        "{\"no\":\"newline\"}\n{\"has\":\"newline\"}\n"
                                + "x".repeat(200_000)
                                + "\n");
    }
}
