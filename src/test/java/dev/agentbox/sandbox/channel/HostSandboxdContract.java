package dev.agentbox.sandbox.channel;

import static dev.agentbox.sandbox.channel.RawChannel.fields;
import static dev.agentbox.sandbox.channel.RawChannel.head;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The helper itself, run on this host, over its Unix socket or over TCP (authenticated with its key
 * before each case's frames): one valid request of each kind, then the frames no honest client
 * sends. Every malformed frame must get its documented answer (docs/sandbox-channel.md: {@code F}
 * with {@code EPROTO}, {@code EVERSION}) or a clean close, and after every case the same server
 * (same pid) must still answer a valid request. The subclasses run it against the image's build and
 * against a sanitizer build, over each transport.
 */
@Timeout(60)
abstract class HostSandboxdContract {

    @TempDir Path dir;

    HostSandboxd helper;
    private long serverPid;

    abstract boolean sanitized();

    abstract HostSandboxd.Transport transport();

    @BeforeEach
    void start() throws Exception {
        helper = HostSandboxd.start(dir, sanitized(), transport());
        serverPid = helper.server().pid();
    }

    /** The server survived the case, answers, and nothing reported a memory or UB error. */
    @AfterEach
    void stillServesAndReportsNothing() throws Exception {
        try {
            assertThat(helper.supervisorAlive()).as("supervisor alive").isTrue();
            List<Frame> answer = request('P', fields(dir.toString(), "1"));
            assertThat(answer).as("a valid request after the case").hasSize(1);
            assertThat((char) answer.get(0).type()).isEqualTo('T');
            assertThat(helper.server().pid()).as("the same server").isEqualTo(serverPid);
            assertThat(helper.sanitizerReports()).as("sanitizer reports").isEmpty();
        } finally {
            helper.close();
        }
    }

    private List<Frame> request(char type, byte[] payload) throws IOException {
        try (RawChannel c = helper.connect()) {
            return c.hello().send(type, payload).readAnswer();
        }
    }

    /** An exec request: no timeout, the helper's cwd, stdin /dev/null, no pid file, no env. */
    private static byte[] exec(String... argv) {
        List<String> f = new ArrayList<>(List.of("0", "", "null", "", String.valueOf(argv.length)));
        f.addAll(List.of(argv));
        f.add("0");
        return fields(f.toArray(String[]::new));
    }

    private static String payloads(List<Frame> frames, char type) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frames.stream().filter(f -> f.type() == type).forEach(f -> out.writeBytes(f.payload()));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void assertCompleted(List<Frame> frames, String status) {
        assertThat(frames).isNotEmpty();
        Frame last = frames.get(frames.size() - 1);
        assertThat((char) last.type()).as("last frame of %s", frames).isEqualTo('C');
        assertThat(last.text()).isEqualTo(status);
    }

    private static void assertFailed(List<Frame> frames, String code, String message) {
        assertThat(frames).hasSize(1);
        assertThat((char) frames.get(0).type()).isEqualTo('F');
        assertThat(frames.get(0).text()).isEqualTo(code + "\0" + message);
    }

    // --- valid requests -------------------------------------------------------------------

    @Test
    void execStreamsStdoutAndStderrThenTheExitStatus() throws IOException {
        List<Frame> answer = request('X', exec("sh", "-c", "echo out; echo err >&2; exit 3"));
        assertThat(payloads(answer, 'O')).isEqualTo("out\n");
        assertThat(payloads(answer, 'E')).isEqualTo("err\n");
        assertCompleted(answer, "3");
    }

    @Test
    void execTakesStdinFramesAndEndsAtTheirEof() throws IOException {
        try (RawChannel c = helper.connect()) {
            c.hello().send('X', fields("0", "", "pipe", "", "1", "cat", "1", "X=1"));
            c.send('I', "hello ").send('I', "world").send('Z', new byte[0]);
            List<Frame> answer = c.readAnswer();
            assertThat(payloads(answer, 'O')).isEqualTo("hello world");
            assertCompleted(answer, "0");
        }
    }

    @Test
    void aSignalFrameReachesTheCommandsGroup() throws IOException {
        try (RawChannel c = helper.connect()) {
            c.hello().send('X', fields("0", "", "pipe", "", "2", "sleep", "30", "0"));
            c.send('S', "15\0");
            assertCompleted(c.readAnswer(), "143");
        }
    }

    @Test
    void execPastItsTimeoutIsKilled() throws IOException {
        List<Frame> answer = request('X', fields("200", "", "null", "", "2", "sleep", "30", "0"));
        assertCompleted(answer, "137");
    }

    @Test
    void aMissingWorkingDirectoryOrCommandIsReportedOnStderr() throws IOException {
        Path missing = dir.resolve("missing");
        List<Frame> cwd =
                request('X', fields("0", missing.toString(), "null", "", "1", "true", "0"));
        assertThat(payloads(cwd, 'E'))
                .isEqualTo(
                        "agentbox-sandboxd: chdir to cwd ("
                                + missing
                                + "): No such file or directory\n");
        assertCompleted(cwd, "126");
        List<Frame> command = request('X', exec("no-such-command-here"));
        assertThat(payloads(command, 'E'))
                .isEqualTo(
                        "agentbox-sandboxd: exec no-such-command-here: No such file or directory\n");
        assertCompleted(command, "127");
    }

    @Test
    void aWrittenFileReadsBackWithItsStatAndMode() throws IOException {
        Path file = dir.resolve("new/sub/file.txt");
        try (RawChannel c = helper.connect()) {
            c.hello().send('W', fields(file.toString(), "640"));
            c.send('D', "hello ").send('D', new byte[0]).send('D', "world").send('Z', new byte[0]);
            assertCompleted(c.readAnswer(), "0");
        }
        assertThat(Files.readString(file)).isEqualTo("hello world");
        List<Frame> read = request('R', fields(file.toString(), "5"));
        assertThat((char) read.get(0).type()).isEqualTo('T');
        assertThat(read.get(0).text()).isEqualTo("81a0 11");
        assertThat(payloads(read, 'D')).as("max + 1 bytes").isEqualTo("hello ");
        assertCompleted(read, "0");
    }

    @Test
    void statListMkdirMoveAndRemoveActOnTheFileSystem() throws IOException {
        assertCompleted(request('M', fields(dir.resolve("a/b/c").toString())), "0");
        assertThat(dir.resolve("a/b/c")).isDirectory();
        Files.writeString(dir.resolve("a/f"), "x");
        List<Frame> list = request('L', fields(dir.resolve("a").toString()));
        assertThat(payloads(list, 'D').split("\0")).containsExactlyInAnyOrder("d/b", "f/f");
        assertCompleted(list, "0");
        assertCompleted(
                request('V', fields(dir.resolve("a/f").toString(), dir.resolve("z/g").toString())),
                "0");
        assertThat(Files.readString(dir.resolve("z/g"))).isEqualTo("x");
        List<Frame> stat = request('P', fields(dir.resolve("z/g").toString(), "0"));
        assertThat(stat).hasSize(1);
        assertThat(stat.get(0).text()).isEqualTo(mode(dir.resolve("z/g")) + " 1");
        assertCompleted(request('K', fields(dir.resolve("a").toString())), "0");
        assertThat(dir.resolve("a")).doesNotExist();
        assertFailed(
                request('R', fields(dir.resolve("a").toString(), "10")),
                "ENOENT",
                "No such file or directory");
    }

    /** st_mode in hex, as the helper writes it. */
    private static String mode(Path p) throws IOException {
        return Integer.toHexString((Integer) Files.getAttribute(p, "unix:mode"));
    }

    @Test
    void followSendsTheFileThenWhatIsAppended() throws IOException {
        Path file = dir.resolve("log");
        Files.writeString(file, "one\n");
        try (RawChannel c = helper.connect()) {
            c.hello().send('G', fields(file.toString(), "0"));
            assertThat(c.read().text()).isEqualTo("one\n");
            Files.writeString(file, "two\n", StandardOpenOption.APPEND);
            assertThat(c.read().text()).isEqualTo("two\n");
        }
    }

    /** The tool bridge's relay ({@code mcp DIR}) of the same build, fed on stdin. */
    @Test
    void theMailboxRelayForwardsLinesAndAnswersAnOversizedOneItself() throws Exception {
        Path mailbox = dir.resolve("mailbox");
        ProcessBuilder pb =
                new ProcessBuilder(
                                HostSandboxd.binary(sanitized()).toString(),
                                "mcp",
                                mailbox.toString())
                        .redirectError(dir.resolve("relay.err").toFile());
        pb.environment().put("AGENTBOX_MCP_TOKEN", "token");
        if (sanitized()) {
            HostSandboxd.sanitizerOptions(pb);
        }
        Process relay = pb.start();
        try (var stdin = relay.getOutputStream()) {
            stdin.write(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
                            .getBytes(StandardCharsets.UTF_8));
            stdin.write(
                    ("{\"id\":42,\"x\":\"" + "a".repeat((1 << 20) + 10) + "\"}\n")
                            .getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(relay.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(relay.waitFor()).as("relay exit").isZero();
        assertThat(out).startsWith("{\"jsonrpc\":\"2.0\",\"id\":42,\"error\":{\"code\":-32600,");
        String session = Files.readString(mailbox.resolve("sessions")).strip();
        assertThat(Files.readString(mailbox.resolve(session + ".in")))
                .isEqualTo(
                        "token\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
                                + "{\"jsonrpc\":\"2.0\",\"method\":\"agentbox/session-ended\"}\n");
        assertThat(HostSandboxd.sanitizerReports(Files.readString(dir.resolve("relay.err"))))
                .isEmpty();
    }

    // --- malformed frames -----------------------------------------------------------------

    @Test
    void aTruncatedHeaderGetsACleanClose() throws IOException {
        try (RawChannel c = helper.connect()) {
            c.sendRaw(new byte[] {'H', 0, 0});
            c.shutdownOutput();
            assertThat(c.read()).isNull();
        }
        try (RawChannel c = helper.connect()) {
            c.hello().sendRaw(new byte[] {'P', 0});
            c.shutdownOutput();
            assertThat(c.read()).isNull();
        }
    }

    @Test
    void aLengthOverTheMaximumIsAProtocolErrorBeforeAnyPayload() throws IOException {
        for (long length : new long[] {(1 << 20) + 1, 0xffffffffL}) {
            try (RawChannel c = helper.connect()) {
                c.sendRaw(head('H', length));
                assertThat(c.readAnswer())
                        .singleElement()
                        .satisfies(f -> assertThat(f.text()).isEqualTo("EPROTO\0frame too large"));
            }
            try (RawChannel c = helper.connect()) {
                c.hello().sendRaw(head('X', length));
                assertFailed(c.readAnswer(), "EPROTO", "frame too large");
            }
        }
    }

    @Test
    void zeroLengthFramesAreRefused() throws IOException {
        try (RawChannel c = helper.connect()) {
            assertFailed(
                    c.send('H', new byte[0]).readAnswer(),
                    "EVERSION",
                    "this helper speaks agentbox-sandboxd/1");
        }
        for (char type : "XRWPLMVKG".toCharArray()) {
            assertFailed(request(type, new byte[0]), "EPROTO", "request fields must end with NUL");
        }
    }

    @Test
    void unknownOrMisplacedFrameTypesAreProtocolErrors() throws IOException {
        try (RawChannel c = helper.connect()) {
            assertFailed(c.send('Q', "x").readAnswer(), "EPROTO", "unknown frame type");
        }
        try (RawChannel c = helper.connect()) {
            assertFailed(c.send((char) 0, "x").readAnswer(), "EPROTO", "unknown frame type");
        }
        try (RawChannel c = helper.connect()) {
            assertFailed(c.send('P', fields("/", "1")).readAnswer(), "EPROTO", "expected hello");
        }
        try (RawChannel c = helper.connect()) {
            assertFailed(
                    c.send('H', "agentbox-sandboxd/2").readAnswer(),
                    "EVERSION",
                    "this helper speaks agentbox-sandboxd/1");
        }
        for (char type : "HDIZS".toCharArray()) {
            assertFailed(request(type, fields("x")), "EPROTO", "expected a request");
        }
        try (RawChannel c = helper.connect()) {
            c.hello().send('W', fields(dir.resolve("w").toString(), "644")).send('I', "x");
            assertFailed(c.readAnswer(), "EPROTO", "only D and Z may follow a write");
        }
        try (RawChannel c = helper.connect()) {
            c.hello().send('X', fields("0", "", "pipe", "", "1", "cat", "0")).send('D', "x");
            assertFailed(c.readAnswer(), "EPROTO", "only I, Z and S may follow an exec");
        }
        assertThat(dir.resolve("w")).doesNotExist();
    }

    @Test
    void malformedFieldsAreProtocolErrors() throws IOException {
        assertFailed(
                request('R', "/etc/hostname\u00001024".getBytes(StandardCharsets.UTF_8)),
                "EPROTO",
                "request fields must end with NUL");
        assertFailed(request('R', fields("/x")), "EPROTO", "wrong number of fields");
        assertFailed(request('R', fields("/x", "-1")), "EPROTO", "not a number");
        assertFailed(
                request('R', fields("/x", "18446744073709551615")),
                "EPROTO",
                "number out of range");
        assertFailed(request('W', fields("/x", "8")), "EPROTO", "not a number");
        assertFailed(request('P', fields("/x", "yes")), "EPROTO", "follow must be 1 or 0");
        assertFailed(
                request('X', fields("0", "", "null", "", "2", "sh", "0")),
                "EPROTO",
                "wrong number of fields");
        assertFailed(
                request('X', fields("0", "", "tty", "", "1", "sh", "0")),
                "EPROTO",
                "stdin must be pipe or null");
        assertFailed(
                request('X', fields("0", "", "null", "rel", "1", "sh", "0")),
                "EPROTO",
                "pidfile must be absolute");
        assertFailed(
                request('X', fields("0", "", "null", "", "1", "sh", "1", "NOEQUALS")),
                "EPROTO",
                "env must be KEY=VALUE");
        assertFailed(
                request('X', fields("0", "", "null", "", "0", "0")),
                "EPROTO",
                "wrong number of fields");
        for (String signal :
                new String[] {"", "0", "65", "x", "1\u00002", "99999999999999999999"}) {
            try (RawChannel c = helper.connect()) {
                c.hello().send('X', fields("0", "", "pipe", "", "1", "cat", "0")).send('S', signal);
                assertFailed(c.readAnswer(), "EPROTO", "bad signal");
            }
        }
    }

    @Test
    void invalidUtf8InAPathIsJustBytes() throws IOException {
        byte[] name = {(byte) 0xff, (byte) 0xfe, 'x'};
        byte[] path = (dir + "/").getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[path.length + name.length + 3];
        System.arraycopy(path, 0, payload, 0, path.length);
        System.arraycopy(name, 0, payload, path.length, name.length);
        payload[payload.length - 2] = '1';
        assertFailed(request('P', payload), "ENOENT", "No such file or directory");
        assertCompleted(
                request('M', java.util.Arrays.copyOf(payload, path.length + name.length + 1)), "0");
        try (Stream<Path> entries = Files.list(dir)) {
            assertThat(entries.filter(Files::isDirectory).count()).isEqualTo(1);
        }
    }

    @Test
    void aClientThatLeavesMidFrameCostsNothing() throws IOException {
        try (RawChannel c = helper.connect()) {
            c.hello().sendRaw(head('P', 100)).sendRaw(new byte[10]);
            untilHandlerEnds(c);
        }
        Path target = dir.resolve("half");
        try (RawChannel c = helper.connect()) {
            c.hello()
                    .send('W', fields(target.toString(), "644"))
                    .send('D', "part")
                    .sendRaw(head('D', 50));
            untilHandlerEnds(c);
        }
        assertThat(hasTempFile()).as("temp file left behind").isFalse();
        assertThat(target).doesNotExist();
    }

    /**
     * Half-closes and reads until the helper closes: its handler reads EOF mid-frame, removes its
     * temp file and exits, and only its exit closes the connection. Polling the directory instead
     * raced the handler on a loaded machine: a first look could come before the temp file was even
     * made.
     */
    private static void untilHandlerEnds(RawChannel c) throws IOException {
        c.shutdownOutput();
        while (c.read() != null) {
            // whatever it answers is not the point; its close is
        }
    }

    private boolean hasTempFile() throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.anyMatch(
                    p -> p.getFileName().toString().startsWith(".agentbox-sandboxd."));
        }
    }

    @Test
    void manyConnectionsAtOnceAreEachAnswered() throws IOException {
        int n = 48;
        List<RawChannel> open = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                open.add(helper.connect());
            }
            for (int i = 0; i < n; i++) {
                open.get(i).hello();
            }
            for (int i = 0; i < n; i++) {
                byte[] request = i % 2 == 0 ? exec("echo", "n" + i) : fields(dir.toString(), "1");
                open.get(i).send(i % 2 == 0 ? 'X' : 'P', request);
            }
            for (int i = 0; i < n; i++) {
                List<Frame> answer = open.get(i).readAnswer();
                if (i % 2 == 0) {
                    assertThat(payloads(answer, 'O')).isEqualTo("n" + i + "\n");
                    assertCompleted(answer, "0");
                } else {
                    assertThat((char) answer.get(0).type()).isEqualTo('T');
                }
            }
        } finally {
            for (RawChannel c : open) {
                c.close();
            }
        }
    }
}
