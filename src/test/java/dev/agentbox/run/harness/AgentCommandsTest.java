package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCommandsTest {

    @TempDir
    Path dir;

    private static final String NASTY = "fix it's \"broken\" $(touch canary) `touch canary` $HOME\nline two\\n ; rm -rf canary &";

    @Test
    void buildsTheDocumentedCommandLines() {
        assertThat(AgentCommands.claudeCode("fix the test"))
                .isEqualTo("claude -p 'fix the test' --output-format stream-json --verbose");
        assertThat(AgentCommands.codex("fix the test")).isEqualTo("codex exec --json 'fix the test'");
        assertThat(AgentCommands.forHarness(Harness.CODEX, "x")).isEqualTo(AgentCommands.codex("x"));
    }

    @Test
    void blankPromptAndTheCommandHarnessAreRejected() {
        assertThatThrownBy(() -> AgentCommands.codex(" \n")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AgentCommands.forHarness(Harness.COMMAND, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void promptReachesTheCliAsOneVerbatimArgument() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String cli : List.of("claude", "codex")) {
            // A stand-in CLI that records its arguments NUL-separated.
            Path fake = bin.resolve(cli);
            Files.writeString(fake, "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGS_OUT\"\n");
            Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertThat(args(bin, AgentCommands.claudeCode(NASTY)))
                .containsExactly("-p", NASTY, "--output-format", "stream-json", "--verbose");
        assertThat(args(bin, AgentCommands.codex(NASTY))).containsExactly("exec", "--json", NASTY);
        assertThat(dir.resolve("canary")).doesNotExist();
    }

    @Test
    void promptStartingWithADashIsNeverAnOption() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin2"));
        Path fake = bin.resolve("codex");
        Files.writeString(fake, "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGS_OUT\"\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(args(bin, AgentCommands.codex("--help me"))).containsExactly("exec", "--json", " --help me");
    }

    private List<String> args(Path bin, String commandLine) throws Exception {
        Path out = dir.resolve("args.bin");
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", commandLine).directory(dir.toFile());
        pb.environment().put("PATH", bin + ":/usr/bin:/bin");
        pb.environment().put("ARGS_OUT", out.toString());
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("sh.log").toFile());
        Process p = pb.start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("sh.log"))).isZero();
        String recorded = Files.readString(out, StandardCharsets.UTF_8);
        return Arrays.asList(recorded.substring(0, recorded.length() - 1).split("\0", -1));
    }
}
