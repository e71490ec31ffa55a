package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.journal.AgentInvocation;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A run's MCP server on the CLI harnesses' command lines; parsed back by a real shell. */
class BridgeFlagsTest {

    private static final String DIR = "/tmp/agentbox-runs/run 'x'.mcp";
    private static final String TOKEN = "tok$(id)`x`";

    /** The words {@code sh} makes of {@code line} (nothing is executed but printf). */
    private static List<String> words(String line) throws Exception {
        Process p =
                new ProcessBuilder("sh", "-c", "set -- " + line + "; printf '%s\\0' \"$@\"")
                        .start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return List.of(out.split("\0"));
    }

    @Test
    void claudeCodeGetsItsMcpConfigAfterItsOutputFlagsAndKeepsEverythingElse() throws Exception {
        AgentInvocation plain = AgentCommands.claudeCode("hi");
        AgentInvocation withTools = BridgeFlags.withTools(Harness.CLAUDE_CODE, plain, DIR, TOKEN);

        assertThat(withTools.prompt()).isEqualTo(plain.prompt());
        assertThat(withTools.command())
                .startsWith(
                        "IS_SANDBOX=1 MCP_TIMEOUT=300000 "
                                + AgentCommands.CLAUDE_CODE
                                + " --mcp-config ")
                .endsWith(" --permission-mode bypassPermissions");
        List<String> w = words(withTools.command());
        assertThat(w.subList(0, 3)).containsExactly("IS_SANDBOX=1", "MCP_TIMEOUT=300000", "claude");
        JsonObject config = Json.createReader(new StringReader(w.get(8))).readObject();
        JsonObject server = config.getJsonObject("mcpServers").getJsonObject("agentbox");
        assertThat(server.getString("command")).isEqualTo(BridgeFlags.HELPER);
        assertThat(server.getJsonArray("args").getString(1)).isEqualTo(DIR);
        assertThat(server.getJsonObject("env").getString("AGENTBOX_MCP_TOKEN")).isEqualTo(TOKEN);
    }

    /**
     * Claude Code in print mode holds its first model request for its MCP servers only for {@code
     * MCP_TIMEOUT} (30 s by default), then goes on without them: a run with tools makes it wait 5
     * minutes for the relay, whatever the mode, and only such a run (CliToolBridgeDockerTest).
     */
    @Test
    void claudeCodeWithToolsWaitsForTheRunsMcpServerBeforeItsFirstRequest() {
        for (PermissionMode mode : PermissionMode.values()) {
            AgentInvocation plain = AgentCommands.claudeCode("hi", mode);
            String line = BridgeFlags.withTools(Harness.CLAUDE_CODE, plain, DIR, TOKEN).command();
            String head = "MCP_TIMEOUT=300000 " + AgentCommands.CLAUDE_CODE + " --mcp-config ";
            assertThat(line)
                    .as(mode.wireName())
                    .startsWith(
                            mode == PermissionMode.BYPASS_PERMISSIONS
                                    ? "IS_SANDBOX=1 " + head
                                    : head);
            assertThat(plain.command()).doesNotContain("MCP_TIMEOUT");
        }
        AgentInvocation resumed =
                BridgeFlags.withTools(
                        Harness.CLAUDE_CODE,
                        AgentCommands.claudeCodeResuming("abc-1", "hi"),
                        DIR,
                        TOKEN);
        assertThat(resumed.command())
                .startsWith("IS_SANDBOX=1 MCP_TIMEOUT=300000 " + AgentCommands.CLAUDE_CODE)
                .endsWith(" --resume abc-1");
    }

    @Test
    void codexGetsItsServerAsConfigOverridesAfterCodexExec() throws Exception {
        AgentInvocation withTools =
                BridgeFlags.withTools(Harness.CODEX, AgentCommands.codex("hi"), DIR, TOKEN);
        List<String> w = words(withTools.command());
        assertThat(w.subList(0, 8))
                .containsExactly(
                        "codex",
                        "exec",
                        "-c",
                        "mcp_servers.agentbox.command=\"" + BridgeFlags.HELPER + "\"",
                        "-c",
                        "mcp_servers.agentbox.args=[\"mcp\",\"/tmp/agentbox-runs/run 'x'.mcp\"]",
                        "-c",
                        "mcp_servers.agentbox.env={AGENTBOX_MCP_TOKEN=\"tok$(id)`x`\"}");
    }

    @Test
    void theCommandHarnessLineGetsTheMailboxAndTokenExportedQuotedInFront() throws Exception {
        AgentInvocation cmd = AgentInvocation.of("cat");
        String line = BridgeFlags.withTools(Harness.COMMAND, cmd, DIR, TOKEN).command();
        assertThat(line)
                .isEqualTo(
                        "export AGENTBOX_MCP_DIR="
                                + ShellQuote.single(DIR)
                                + " AGENTBOX_MCP_TOKEN="
                                + ShellQuote.single(TOKEN)
                                + "; cat");
        // What the shell makes of it: the values arrive as they are, nothing runs.
        assertThat(words(line.substring("export ".length(), line.indexOf("; cat"))))
                .containsExactly("AGENTBOX_MCP_DIR=" + DIR, "AGENTBOX_MCP_TOKEN=" + TOKEN);
    }
}
