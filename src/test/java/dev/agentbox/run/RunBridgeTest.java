package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.tool.ApprovalRules;
import dev.agentbox.tool.http.HttpTool;
import jakarta.json.Json;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunBridgeTest {

    private static final HttpTool WEATHER =
            new HttpTool(
                    "weather",
                    "",
                    Json.createObjectBuilder().add("type", "object").build(),
                    URI.create("http://tools.example/weather"));

    private static ApprovalRules rules(String json) {
        return ApprovalRules.parse(
                Json.createReader(new java.io.StringReader(json)).readArray(), "approvals");
    }

    @Test
    void aClaudeRunWithoutToolsAndWithOnlyAllowRulesGetsNoBridge() {
        assertThat(RunBridge.plan(Harness.CLAUDE_CODE, List.of(), ApprovalRules.NONE)).isEmpty();
        assertThat(
                        RunBridge.plan(
                                Harness.CLAUDE_CODE,
                                List.of(),
                                rules("[{\"tool\":\"*\",\"decision\":\"allow\"}]")))
                .isEmpty();
    }

    /** AP-13. */
    @Test
    void aCodexRunGetsABridgeOnlyWhenItHasToolsForItsOwnCommandsAreNeverGated() {
        assertThat(RunBridge.plan(Harness.CODEX, List.of(WEATHER), ApprovalRules.NONE)).isPresent();
        assertThat(
                        RunBridge.plan(
                                Harness.CODEX,
                                List.of(),
                                rules("[{\"tool\":\"*\",\"decision\":\"ask\"}]")))
                .isEmpty();
    }

    @Test
    void aCodexRunsLineGetsItsMcpServerAndNoPermissionPromptWhateverTheRules() {
        String line =
                RunBridge.invocation(
                                Harness.CODEX,
                                rules("[{\"tool\":\"*\",\"decision\":\"ask\"}]"),
                                AgentCommands.codex("hi"),
                                "/tmp/agentbox-runs/r.mcp",
                                "tok")
                        .command();
        assertThat(line)
                .startsWith("codex exec -c ")
                .contains("mcp_servers.agentbox.command=")
                .doesNotContain("permission-prompt");
    }

    @Test
    void aCommandRunGetsABridgeOnlyWhenItHasTools() {
        assertThat(RunBridge.plan(Harness.COMMAND, List.of(WEATHER), ApprovalRules.NONE))
                .isPresent();
        assertThat(
                        RunBridge.plan(
                                Harness.COMMAND,
                                List.of(),
                                rules("[{\"tool\":\"*\",\"decision\":\"ask\"}]")))
                .as("no tools: nothing of its own to gate")
                .isEmpty();
    }

    @Test
    void aCommandRunsLineGetsTheMailboxAndTokenExportedInFrontAndNothingElse() {
        AgentInvocation agent = new AgentInvocation("my-agent --go", java.util.Optional.empty());
        String line =
                RunBridge.invocation(
                                Harness.COMMAND,
                                rules("[{\"tool\":\"*\",\"decision\":\"ask\"}]"),
                                agent,
                                "/tmp/agentbox-runs/r.mcp",
                                "tok")
                        .command();
        assertThat(line)
                .isEqualTo(
                        "export AGENTBOX_MCP_DIR='/tmp/agentbox-runs/r.mcp'"
                                + " AGENTBOX_MCP_TOKEN='tok'; my-agent --go");
    }

    @Test
    void theStoredBridgeHoldsTheTokensHashAndTheToolsButNeverTheToken() {
        RunBridge.Planned p =
                RunBridge.plan(Harness.CLAUDE_CODE, List.of(WEATHER), ApprovalRules.NONE)
                        .orElseThrow();
        assertThat(p.token()).hasSize(64);
        assertThat(p.stored().toString()).doesNotContain(p.token());
        assertThat(p.stored().getString("tokenSha256")).isEqualTo(RunBridge.sha256Hex(p.token()));
        assertThat(RunBridge.tools(p.stored())).containsExactly(WEATHER);
        assertThat(
                        RunBridge.plan(Harness.CLAUDE_CODE, List.of(WEATHER), ApprovalRules.NONE)
                                .orElseThrow()
                                .token())
                .as("random per run")
                .isNotEqualTo(p.token());
    }

    @Test
    void anAskRuleSwitchesClaudeCodeFromBypassToTheBridgesPermissionPrompt() {
        ApprovalRules ask = rules("[{\"tool\":\"Bash\",\"decision\":\"ask\"}]");
        assertThat(RunBridge.plan(Harness.CLAUDE_CODE, List.of(), ask)).isPresent();
        AgentInvocation agent =
                AgentCommands.forHarness(
                        Harness.CLAUDE_CODE, "hi", PermissionMode.BYPASS_PERMISSIONS);
        String line =
                RunBridge.invocation(
                                Harness.CLAUDE_CODE, ask, agent, "/tmp/agentbox-runs/r.mcp", "tok")
                        .command();
        assertThat(line)
                .startsWith("IS_SANDBOX=1 ")
                .contains(
                        "--permission-mode default --permission-prompt-tool mcp__agentbox__approve")
                .doesNotContain("bypassPermissions")
                .contains("--mcp-config");
    }

    @Test
    void toolsAloneKeepBypassAndAddOnlyTheMcpServer() {
        AgentInvocation agent =
                AgentCommands.forHarness(
                        Harness.CLAUDE_CODE, "hi", PermissionMode.BYPASS_PERMISSIONS);
        String line =
                RunBridge.invocation(
                                Harness.CLAUDE_CODE,
                                ApprovalRules.NONE,
                                agent,
                                "/tmp/agentbox-runs/r.mcp",
                                "tok")
                        .command();
        assertThat(line)
                .contains("--permission-mode bypassPermissions")
                .doesNotContain("--permission-prompt-tool")
                .contains("--mcp-config");
    }
}
