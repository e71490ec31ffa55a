package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the built commands with the real local shells (dash/bash and BusyBox when present). */
class JournalCommandTest {

    @TempDir Path work;

    private Path cwd;
    private Path journalDir;
    private JournalCommand commands;

    private void setUp(String shell) throws IOException {
        cwd = Files.createDirectories(work.resolve("cwd-" + shell.replaceAll("[^a-z]", "")));
        journalDir = cwd.resolve("runs");
        commands = new JournalCommand(journalDir.toString());
    }

    /** The commands the shell sandbox ran, in order. */
    private final List<String> execs = new java.util.ArrayList<>();

    /** One random nonce for the whole class: a test's writer and its checks agree on it. */
    private static final String NONCE = JournalId.newNonce();

    private static JournalId id(String runId) {
        return new JournalId(runId, NONCE);
    }

    private String journal(String runId) throws IOException {
        return Files.readString(Path.of(commands.journalPath(runId)), StandardCharsets.UTF_8);
    }

    private String err(String runId) throws IOException {
        return Files.readString(Path.of(commands.errPath(runId)), StandardCharsets.UTF_8);
    }

    @Test
    void buildsTheExactJournaledForm() {
        JournalCommand c = new JournalCommand(JournalNames.DEFAULT_DIR);
        String nonce = id("a/b").nonce();
        assertThat(c.journaled("my-agent --json", id("a/b")))
                .isEqualTo(
                        "mkdir -p '/tmp/agentbox-runs' && { ( my-agent --json ); printf '{\"__exit\":%d,\"__nonce\":\""
                                + nonce
                                + "\"}\\n' \"$?\"; } >> '/tmp/agentbox-runs/a_2fb.ndjson' 2>> '/tmp/agentbox-runs/a_2fb.err'");
    }

    @Test
    void theSentinelCarriesTheRunsOwnNonceNotOneComputedFromTheRunId() throws Exception {
        setUp("/bin/sh");
        JournalId own = JournalId.random("own");
        Sh.run(cwd, List.of("/bin/sh", "-c", commands.journaled("true", own)));
        assertThat(journal("own"))
                .isEqualTo(ExitSentinel.of(own).line(0) + "\n")
                .doesNotContain(JournalNames.nonce("own"));
    }

    @Test
    void withAPromptTheAgentsStdinIsThePromptFileAndThePromptIsNowhereInTheCommand() {
        JournalCommand c = new JournalCommand(JournalNames.DEFAULT_DIR);
        String nonce = id("a/b").nonce();
        assertThat(c.journaled(AgentInvocation.withPrompt("my-agent -", "do $(this)"), id("a/b")))
                .isEqualTo(
                        "mkdir -p '/tmp/agentbox-runs' && { ( my-agent - ) < '/tmp/agentbox-runs/a_2fb.prompt'; printf '{\"__exit\":%d,"
                                + "\"__nonce\":\""
                                + nonce
                                + "\"}\\n' \"$?\"; } >> '/tmp/agentbox-runs/a_2fb.ndjson'"
                                + " 2>> '/tmp/agentbox-runs/a_2fb.err'");
        assertThat(c.detached(AgentInvocation.withPrompt("my-agent -", "do $(this)"), id("a/b")))
                .doesNotContain("this");
    }

    @Test
    void thePromptIsWrittenInPiecesWithMode0600ReplacingAnyEarlierOneAndIsTheAgentsStdin()
            throws Exception {
        String prompt = Prompts.atLeast(2 * PromptFile.CHUNK_BYTES + 100);
        for (String shell : Sh.availableShells()) {
            setUp(shell);
            String path = shell.contains("busybox") ? busyboxOnlyPath(shell.split(" ")[0]) : null;
            SandboxHandle sandbox = shellSandbox(shell, path);
            PromptFile prompts = new PromptFile(commands);
            Path file = Path.of(commands.promptPath("p-1"));

            prompts.write(sandbox, "p-1", prompt);
            assertThat(Files.readString(file, StandardCharsets.UTF_8)).as(shell).isEqualTo(prompt);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");

            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
            prompts.write(sandbox, "p-1", "short");
            assertThat(Files.readString(file)).isEqualTo("short");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");

            prompts.write(sandbox, "p-1", prompt);
            Sh.Result r =
                    Sh.run(
                            cwd,
                            List.of(
                                    shell,
                                    "-c",
                                    commands.journaled(
                                            AgentInvocation.withPrompt("cat; echo", prompt),
                                            id("p-1"))),
                            path);
            assertThat(r.exitCode()).isZero();
            assertThat(journal("p-1"))
                    .isEqualTo(prompt + "\n" + ExitSentinel.of(id("p-1")).line(0) + "\n");
            assertThat(err("p-1")).isEmpty();
            assertThat(cwd.resolve("canary")).doesNotExist();

            Path mailbox = Path.of(commands.mailboxPath("p-1"));
            Files.createDirectories(mailbox.resolve("0123456789abcdef.out"));
            Files.writeString(mailbox.resolve("sessions"), "0123456789abcdef\n");
            assertThat(Sh.run(cwd, List.of(shell, "-c", commands.delete("p-1")), path).exitCode())
                    .isZero();
            assertThat(file).doesNotExist();
            assertThat(Path.of(commands.journalPath("p-1"))).doesNotExist();
            assertThat(mailbox).doesNotExist();
        }
    }

    @Test
    void aSmallPromptIsWrittenByTheExecThatStartsTheAgentALargerOneByExecsOfItsOwnBefore()
            throws Exception {
        setUp("/bin/sh");
        SandboxHandle sandbox = shellSandbox("/bin/sh", null);
        JournalLauncher launcher = new JournalLauncher();
        String small = "do $(touch canary) 'now' \"x\"\n€uro";
        // The agent prints its prompt and its umask: the prompt write's umask 077 stays in the
        // write's own subshell.
        launcher.start(sandbox, id("s-1"), AgentInvocation.withPrompt("cat; echo; umask", small));
        assertThat(execs).hasSize(1);
        waitFor(
                () ->
                        Files.exists(Path.of(commands.journalPath("s-1")))
                                && journal("s-1").contains("__exit"));
        assertThat(journal("s-1")).startsWith(small + "\n").doesNotContain("077\n");
        assertThat(
                        PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(Path.of(commands.promptPath("s-1")))))
                .isEqualTo("rw-------");
        assertThat(cwd.resolve("canary")).doesNotExist();

        execs.clear();
        String large = Prompts.atLeast(PromptFile.INLINE_BYTES + 1);
        launcher.start(sandbox, id("s-2"), AgentInvocation.withPrompt("cat", large));
        assertThat(execs).hasSize(2);
        waitFor(
                () ->
                        Files.exists(Path.of(commands.journalPath("s-2")))
                                && journal("s-2").contains("__exit"));
        assertThat(journal("s-2")).startsWith(large);
    }

    @Test
    void aMissingPromptFileFailsTheAgentInsteadOfRunningItWithoutItsTask() throws Exception {
        setUp("/bin/sh");
        Sh.run(
                cwd,
                List.of(
                        "/bin/sh",
                        "-c",
                        commands.journaled(
                                AgentInvocation.withPrompt("echo ran", "lost"), id("nofile"))));
        String journal = journal("nofile");
        assertThat(journal).doesNotContain("ran").endsWith("\n");
        OptionalInt code = ExitSentinel.of(id("nofile")).exitCode(journal.strip());
        assertThat(code).isPresent();
        assertThat(code.getAsInt()).isNotZero();
        assertThat(err("nofile")).contains("nofile.prompt");
    }

    @Test
    void detachedFormIgnoresHangupAndRedirectsAllStreams() {
        JournalCommand c = new JournalCommand(JournalNames.DEFAULT_DIR);
        assertThat(c.detached("x", id("r")))
                .isEqualTo(
                        "sh -c "
                                + ShellQuote.single("trap '' HUP; " + c.journaled("x", id("r")))
                                + " </dev/null >/dev/null 2>&1 &");
    }

    @Test
    void detachedAgentSurvivesAHangupOfItsShell() throws Exception {
        for (String shell : Sh.availableShells()) {
            setUp(shell);
            String path = shell.contains("busybox") ? busyboxOnlyPath(shell.split(" ")[0]) : null;
            // $$ is the wrapper shell started by the detached form; a hangup must kill neither it
            // (it still has to write the sentinel) nor the agent.
            Sh.run(
                    cwd,
                    List.of(
                            shell,
                            "-c",
                            commands.detached("kill -HUP $$; sleep 0.1; echo survived", id("hup"))),
                    path);
            String expected = "survived\n" + ExitSentinel.of(id("hup")).line(0) + "\n";
            waitFor(
                    () ->
                            Files.exists(Path.of(commands.journalPath("hup")))
                                    && journal("hup").equals(expected));
        }
    }

    @Test
    void rejectsARelativeJournalDirAndABlankCommand() {
        assertThatThrownBy(() -> new JournalCommand("tmp/x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JournalCommand("/tmp/x/"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(
                        () -> new JournalCommand(JournalNames.DEFAULT_DIR).journaled(" ", id("r")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void journalHoldsTheAgentsLinesThenTheSentinel_JN01() throws Exception {
        for (String shell : Sh.availableShells()) {
            setUp(shell);
            Sh.Result r =
                    Sh.run(
                            cwd,
                            List.of(
                                    shell,
                                    "-c",
                                    commands.journaled(
                                            "printf '{\"a\":1}\\n{\"b\":2}\\n'", id("run-1"))));
            assertThat(r.exitCode()).as(shell).isZero();
            assertThat(r.stdout()).isEmpty();
            assertThat(journal("run-1"))
                    .as(shell)
                    .isEqualTo(
                            "{\"a\":1}\n{\"b\":2}\n" + ExitSentinel.of(id("run-1")).line(0) + "\n");
            assertThat(err("run-1")).isEmpty();
        }
    }

    @Test
    void stderrGoesOnlyToTheErrFileAndTheExitCodeToTheSentinel_JN02() throws Exception {
        for (String shell : Sh.availableShells()) {
            setUp(shell);
            Sh.Result r =
                    Sh.run(
                            cwd,
                            List.of(
                                    shell,
                                    "-c",
                                    commands.journaled(
                                            "echo out; echo boom >&2; exit 7", id("run-7"))));
            assertThat(r.stdout()).isEmpty();
            assertThat(r.stderr()).isEmpty();
            String journal = journal("run-7");
            assertThat(journal)
                    .as(shell)
                    .isEqualTo("out\n" + ExitSentinel.of(id("run-7")).line(7) + "\n")
                    .contains("\"__exit\":7")
                    .doesNotContain("boom");
            assertThat(err("run-7")).isEqualTo("boom\n");
        }
    }

    @Test
    void journalIsAppendOnly() throws Exception {
        setUp("/bin/sh");
        Sh.run(cwd, List.of("/bin/sh", "-c", commands.journaled("echo one", id("r"))));
        Sh.run(cwd, List.of("/bin/sh", "-c", commands.journaled("echo two", id("r"))));
        String s = ExitSentinel.of(id("r")).line(0);
        assertThat(journal("r")).isEqualTo("one\n" + s + "\ntwo\n" + s + "\n");
    }

    @Test
    void runIdWithShellMetacharactersIsHarmless_JN12() throws Exception {
        String idOutput = Sh.run(work, List.of("/bin/sh", "-c", "printf %s \"$(id)\"")).stdout();
        Path globalCanary = Path.of("/tmp/x" + idOutput);
        for (String shell : Sh.availableShells()) {
            setUp(shell);
            Path canary = cwd.resolve("canary");
            List<String> runIds =
                    List.of(
                            "a;touch /tmp/x$(id) b/c",
                            "a;touch " + canary + "$(id) b/c",
                            "'; touch " + canary + "; '",
                            "$(touch " + canary + ")",
                            "`touch " + canary + "`",
                            "../../" + canary.getFileName(),
                            "x\ntouch " + canary);
            for (String runId : runIds) {
                Sh.Result r =
                        Sh.run(cwd, List.of(shell, "-c", commands.journaled("echo ok", id(runId))));
                assertThat(r.exitCode()).as(shell + " " + runId).isZero();
                assertThat(journal(runId)).startsWith("ok\n");
                r = Sh.run(cwd, List.of(shell, "-c", commands.readFrom(runId, 0)));
                assertThat(
                                new String(
                                        Base64.getMimeDecoder().decode(r.stdout()),
                                        StandardCharsets.UTF_8))
                        .startsWith("ok\n");
            }
            try (Stream<Path> inCwd = Files.list(cwd)) {
                assertThat(inCwd)
                        .as("nothing but the journal dir in the cwd (%s)", shell)
                        .containsExactly(journalDir);
            }
            try (Stream<Path> journals = Files.list(journalDir)) {
                List<String> names = journals.map(p -> p.getFileName().toString()).toList();
                assertThat(names).hasSize(2 * runIds.size());
                assertThat(names.stream().filter(n -> n.endsWith(".ndjson")))
                        .hasSize(runIds.size())
                        .allMatch(n -> n.matches("^[A-Za-z0-9._-]+\\.ndjson$"));
            }
            assertThat(canary).doesNotExist();
        }
        assertThat(globalCanary).doesNotExist();
    }

    @Test
    void detachedAgentOutlivesTheShellThatStartedIt() throws Exception {
        for (String shell : Sh.availableShells()) {
            setUp(shell);
            // With BusyBox, make every tool (including the inner `sh`) a BusyBox applet.
            String path = shell.contains("busybox") ? busyboxOnlyPath(shell.split(" ")[0]) : null;
            String agent =
                    "echo 'started'; i=0; while [ ! -f gate ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; echo late; exit 3";
            Sh.Result r =
                    Sh.run(cwd, List.of(shell, "-c", commands.detached(agent, id("d-1"))), path);
            // The starting shell has returned although the agent is parked on the gate.
            assertThat(r.exitCode()).as(shell).isZero();
            assertThat(r.stdout()).isEmpty();
            waitFor(
                    () ->
                            Files.exists(Path.of(commands.journalPath("d-1")))
                                    && journal("d-1").startsWith("started\n"));
            assertThat(journal("d-1")).isEqualTo("started\n");
            Files.writeString(cwd.resolve("gate"), "");
            String expected = "started\nlate\n" + ExitSentinel.of(id("d-1")).line(3) + "\n";
            waitFor(() -> journal("d-1").equals(expected));
            Files.delete(cwd.resolve("gate"));
        }
    }

    @Test
    void boundedReadResumesFromAByteOffsetAndProbeSeesTheSentinel() throws Exception {
        setUp("/bin/sh");
        Sh.run(cwd, List.of("/bin/sh", "-c", commands.journaled("printf 'é1\\nö2\\n'", id("p"))));
        Sh.Result r = Sh.run(cwd, List.of("/bin/sh", "-c", commands.readFrom("p", 4)));
        String rest =
                new String(Base64.getMimeDecoder().decode(r.stdout()), StandardCharsets.UTF_8);
        assertThat(rest).startsWith("ö2\n");
        r = Sh.run(cwd, List.of("/bin/sh", "-c", commands.probeTail("p")));
        byte[] tail = Base64.getMimeDecoder().decode(r.stdout());
        assertThat(JournalProbe.probe(tail, ExitSentinel.of(id("p"))))
                .isEqualTo(new JournalProbe.Finished(0));
        r = Sh.run(cwd, List.of("/bin/sh", "-c", commands.readFrom("missing", 0)));
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).isEmpty();
        r = Sh.run(cwd, List.of("/bin/sh", "-c", commands.delete("p")));
        assertThat(r.exitCode()).isZero();
        assertThat(Path.of(commands.journalPath("p"))).doesNotExist();
        assertThat(Path.of(commands.errPath("p"))).doesNotExist();
    }

    @Test
    void readerCommandsCountFromOneAndQuoteThePath() {
        JournalCommand c = new JournalCommand(JournalNames.DEFAULT_DIR);
        assertThat(c.follow("a b", 0))
                .isEqualTo(
                        "if tail --version >/dev/null 2>&1; then exec tail -c +1 -s 0.05 -f"
                                + " '/tmp/agentbox-runs/a_20b.ndjson'; else exec tail -c +1 -f '/tmp/agentbox-runs/a_20b.ndjson'; fi");
        assertThat(c.follow("a", 10))
                .contains("exec tail -c +11 -s 0.05 -f '/tmp/agentbox-runs/a.ndjson'");
        assertThatThrownBy(() -> c.follow("a", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A sandbox whose exec runs {@code shell -c} in the test's cwd (with {@code path} as PATH when
     * given).
     */
    private SandboxHandle shellSandbox(String shell, String path) {
        SandboxProcesses processes =
                new SandboxProcesses() {
                    @Override
                    public ExecResult exec(String command, ProcessOptions options) {
                        execs.add(command);
                        try {
                            Sh.Result r = Sh.run(cwd, List.of(shell, "-c", command), path);
                            return new ExecResult(r.stdout(), r.stderr(), r.exitCode());
                        } catch (IOException | InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }

                    @Override
                    public SandboxProcess spawn(String command, ProcessOptions options) {
                        throw new UnsupportedOperationException();
                    }
                };
        return (SandboxHandle)
                Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {SandboxHandle.class},
                        (proxy, method, args) ->
                                switch (method.getName()) {
                                    case "process" -> processes;
                                    case "id" -> "shell";
                                    case "journalDirectory" -> commands.dir();
                                    default ->
                                            throw new UnsupportedOperationException(
                                                    method.getName());
                                });
    }

    private String busyboxOnlyPath(String busybox) throws IOException {
        Path bin = Files.createDirectories(work.resolve("bb-bin"));
        for (String applet :
                new String[] {
                    "sh", "mkdir", "printf", "sleep", "tail", "base64", "rm", "cat", "kill"
                }) {
            Path link = bin.resolve(applet);
            if (!Files.exists(link)) {
                Files.createSymbolicLink(link, Path.of(busybox));
            }
        }
        return bin.toString();
    }

    interface Check {
        boolean ok() throws Exception;
    }

    private static void waitFor(Check check) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!check.ok()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 15 s");
            }
            Thread.sleep(20);
        }
    }
}
