package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.journal.JournalCommand;
import dev.agentbox.run.journal.JournalId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCommandsTest {

    @TempDir Path dir;

    private static final String NASTY =
            "fix it's \"broken\" $(touch canary) `touch canary` $HOME\nline two\\n ; rm -rf canary &";

    private static final String CLAUDE =
            "IS_SANDBOX=1 claude -p --output-format stream-json --verbose"
                    + " --permission-mode bypassPermissions";
    private static final String CODEX =
            "codex exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -";

    @Test
    void aSessionIsResumedByIdOnlyWhenTheIdNeedsNoQuoting() {
        assertThat(AgentCommands.claudeCodeResuming("0b6f-41c2_x", "next"))
                .isEqualTo(
                        new AgentInvocation(CLAUDE + " --resume 0b6f-41c2_x", Optional.of("next")));
        assertThat(
                        AgentCommands.codexResuming(
                                "01a2-3b", "next", PermissionMode.BYPASS_PERMISSIONS))
                .isEqualTo(
                        new AgentInvocation(
                                "codex exec resume --json --skip-git-repo-check"
                                        + " --dangerously-bypass-approvals-and-sandbox 01a2-3b -",
                                Optional.of("next")));
        for (String bad : new String[] {"", "a b", "x;rm -rf /", "$(id)", "-".repeat(129)}) {
            assertThat(AgentCommands.isSessionId(bad)).as(bad).isFalse();
            assertThatThrownBy(() -> AgentCommands.claudeCodeResuming(bad, "next"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> AgentCommands.codexResuming(bad, "next", PermissionMode.PLAN))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void eachPermissionModeMapsOntoEachClisOwnFlags() {
        assertThat(AgentCommands.claudeCode("p", PermissionMode.DEFAULT).command())
                .isEqualTo(
                        "claude -p --output-format stream-json --verbose --permission-mode default");
        assertThat(AgentCommands.claudeCode("p", PermissionMode.ACCEPT_EDITS).command())
                .endsWith(" --permission-mode acceptEdits")
                .doesNotContain("IS_SANDBOX");
        assertThat(AgentCommands.claudeCodeResuming("s", "p", PermissionMode.PLAN).command())
                .isEqualTo(
                        "claude -p --output-format stream-json --verbose --permission-mode plan"
                                + " --resume s");
        assertThat(AgentCommands.codex("p", PermissionMode.DEFAULT).command())
                .isEqualTo("codex exec --json --skip-git-repo-check -c sandbox_mode=read-only -");
        assertThat(AgentCommands.codex("p", PermissionMode.PLAN).command())
                .isEqualTo("codex exec --json --skip-git-repo-check -c sandbox_mode=read-only -");
        assertThat(AgentCommands.codex("p", PermissionMode.ACCEPT_EDITS).command())
                .isEqualTo(
                        "codex exec --json --skip-git-repo-check -c sandbox_mode=workspace-write -");
        assertThat(AgentCommands.codexResuming("t", "p", PermissionMode.ACCEPT_EDITS).command())
                .isEqualTo(
                        "codex exec resume --json --skip-git-repo-check"
                                + " -c sandbox_mode=workspace-write t -");
        for (PermissionMode m : PermissionMode.values()) {
            assertThat(PermissionMode.of(m.wireName())).contains(m);
        }
        assertThat(PermissionMode.of("BYPASSPERMISSIONS")).isEmpty();
        assertThat(PermissionMode.names())
                .isEqualTo("default, acceptEdits, plan, bypassPermissions");
    }

    @Test
    void buildsTheDocumentedCommandLinesWithThePromptOnStdinNotOnTheCommandLine() {
        assertThat(AgentCommands.claudeCode("fix the test"))
                .isEqualTo(new AgentInvocation(CLAUDE, Optional.of("fix the test")));
        assertThat(AgentCommands.codex("fix the test"))
                .isEqualTo(new AgentInvocation(CODEX, Optional.of("fix the test")));
        assertThat(AgentCommands.forHarness(Harness.CODEX, "x"))
                .isEqualTo(AgentCommands.codex("x"));
        assertThat(AgentCommands.forHarness(Harness.CLAUDE_CODE, NASTY).command())
                .doesNotContain("fix");
    }

    @Test
    void blankPromptAndTheCommandHarnessAreRejected() {
        assertThatThrownBy(() -> AgentCommands.codex(" \n"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AgentCommands.forHarness(Harness.COMMAND, "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theJournaledCliGetsTheDocumentedArgumentsAndThePromptVerbatimOnStdin() throws Exception {
        Path bin = fakeClis("bin");
        Reached claude = run(bin, AgentCommands.claudeCode(NASTY));
        assertThat(claude.args())
                .containsExactly(
                        "-p",
                        "--output-format",
                        "stream-json",
                        "--verbose",
                        "--permission-mode",
                        "bypassPermissions");
        assertThat(claude.stdin()).isEqualTo(NASTY);
        assertThat(claude.isSandbox()).as("IS_SANDBOX in the CLI's environment").isEqualTo("1");
        Reached codex = run(bin, AgentCommands.codex(NASTY));
        assertThat(codex.args())
                .containsExactly(
                        "exec",
                        "--json",
                        "--skip-git-repo-check",
                        "--dangerously-bypass-approvals-and-sandbox",
                        "-");
        assertThat(codex.stdin()).isEqualTo(NASTY);
        Reached plan = run(bin, AgentCommands.codex(NASTY, PermissionMode.PLAN));
        assertThat(plan.args())
                .containsExactly(
                        "exec",
                        "--json",
                        "--skip-git-repo-check",
                        "-c",
                        "sandbox_mode=read-only",
                        "-");
        assertThat(dir.resolve("canary")).doesNotExist();
    }

    @Test
    void aPromptStartingWithADashIsInputNotAnOption() throws Exception {
        Reached codex = run(fakeClis("bin2"), AgentCommands.codex("--help me"));
        assertThat(codex.args()).last().isEqualTo("-");
        assertThat(codex.stdin()).isEqualTo("--help me");
    }

    /** What a stand-in CLI was called with: its arguments and the bytes of its stdin. */
    private record Reached(List<String> args, String stdin, String isSandbox) {}

    /** Stand-in CLIs that record their arguments NUL-separated and copy their stdin. */
    private Path fakeClis(String name) throws Exception {
        Path bin = Files.createDirectories(dir.resolve(name));
        for (String cli : List.of("claude", "codex")) {
            Path fake = bin.resolve(cli);
            Files.writeString(
                    fake,
                    "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGS_OUT\"\ncat > \"$STDIN_OUT\"\n"
                            + "printf '%s' \"$IS_SANDBOX\" > \"$ARGS_OUT.env\"\n");
            Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return bin;
    }

    /**
     * Runs the invocation as the journal launcher does: its prompt in the run's prompt file, the
     * journaled form (which feeds that file to the command's stdin) in a shell.
     */
    private Reached run(Path bin, AgentInvocation agent) throws Exception {
        JournalCommand commands = new JournalCommand(dir.resolve("runs").toString());
        JournalId journal = JournalId.random("r-" + System.nanoTime());
        Files.createDirectories(dir.resolve("runs"));
        Files.writeString(
                Path.of(commands.promptPath(journal.runId())), agent.prompt().orElseThrow());
        Path args = dir.resolve("args.bin");
        Path stdin = dir.resolve("stdin.bin");
        ProcessBuilder pb =
                new ProcessBuilder("/bin/sh", "-c", commands.journaled(agent, journal))
                        .directory(dir.toFile());
        pb.environment().put("PATH", bin + ":/usr/bin:/bin");
        pb.environment().remove("IS_SANDBOX");
        pb.environment().put("ARGS_OUT", args.toString());
        pb.environment().put("STDIN_OUT", stdin.toString());
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("sh.log").toFile());
        Process p = pb.start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("sh.log"))).isZero();
        assertThat(Files.readString(Path.of(commands.errPath(journal.runId())))).isEmpty();
        String recorded = Files.readString(args, StandardCharsets.UTF_8);
        return new Reached(
                Arrays.asList(recorded.substring(0, recorded.length() - 1).split("\0", -1)),
                Files.readString(stdin, StandardCharsets.UTF_8),
                Files.readString(Path.of(args + ".env")));
    }
}
