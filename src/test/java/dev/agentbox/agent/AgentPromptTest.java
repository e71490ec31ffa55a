package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.agent.RunAgentInput.Message;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.sandbox.SecretBrokering;
import dev.agentbox.tool.ApprovalRules;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AgentPromptTest {

    private static AgentTemplate template(Harness harness, Optional<String> command) {
        return new AgentTemplate(
                JsonValue.EMPTY_JSON_OBJECT,
                harness,
                command,
                Optional.empty(),
                true,
                true,
                false,
                Optional.empty(),
                List.of(),
                ApprovalRules.NONE,
                List.of(),
                SecretBrokering.NONE,
                Optional.empty());
    }

    private static final List<Message> EARLIER =
            List.of(new Message("user", "a"), new Message("assistant", "b"));

    @Test
    void aCommandAgentReadsTheTranscriptAndPromptOnStdin() {
        AgentInvocation i =
                AgentPrompt.invocation(
                        template(Harness.COMMAND, Optional.of("cat")),
                        EARLIER,
                        "now",
                        Optional.empty());

        assertThat(i.command()).isEqualTo("cat");
        assertThat(i.prompt()).contains(AgentPrompt.text(EARLIER, "now"));
    }

    @Test
    void claudeResumesItsSessionWithThePromptAloneAndOtherwiseGetsTheTranscript() {
        AgentTemplate claude = template(Harness.CLAUDE_CODE, Optional.empty());

        AgentInvocation resumed =
                AgentPrompt.invocation(claude, EARLIER, "now", Optional.of("sess-1"));
        assertThat(resumed.command()).endsWith(" --resume sess-1");
        assertThat(resumed.prompt()).contains("now");

        AgentInvocation fresh = AgentPrompt.invocation(claude, EARLIER, "now", Optional.empty());
        assertThat(fresh.command()).doesNotContain("--resume");
        assertThat(fresh.prompt()).contains(AgentPrompt.text(EARLIER, "now"));

        AgentInvocation command =
                AgentPrompt.invocation(
                        template(Harness.COMMAND, Optional.of("cat")),
                        EARLIER,
                        "now",
                        Optional.of("ignored"));
        assertThat(command.command()).isEqualTo("cat");
        assertThat(command.prompt()).contains(AgentPrompt.text(EARLIER, "now"));
    }

    @Test
    void codexResumesItsSessionWithThePromptAloneAndOtherwiseGetsTheTranscript() {
        AgentTemplate codex = template(Harness.CODEX, Optional.empty());

        AgentInvocation resumed =
                AgentPrompt.invocation(codex, EARLIER, "now", Optional.of("01a2-thread"));
        assertThat(resumed.command())
                .isEqualTo(
                        "codex exec resume --json --skip-git-repo-check"
                                + " --dangerously-bypass-approvals-and-sandbox 01a2-thread -");
        assertThat(resumed.prompt()).contains("now");

        AgentInvocation fresh = AgentPrompt.invocation(codex, EARLIER, "now", Optional.empty());
        assertThat(fresh.command()).doesNotContain("resume");
        assertThat(fresh.prompt()).contains(AgentPrompt.text(EARLIER, "now"));
    }

    @Test
    void theDefinitionsPermissionModeReachesTheCliWhetherFreshOrResumed() {
        AgentTemplate plan =
                new AgentTemplate(
                        JsonValue.EMPTY_JSON_OBJECT,
                        Harness.CLAUDE_CODE,
                        Optional.empty(),
                        Optional.of(PermissionMode.PLAN),
                        true,
                        true,
                        false,
                        Optional.empty(),
                        List.of(),
                        ApprovalRules.NONE,
                        List.of(),
                        SecretBrokering.NONE,
                        Optional.empty());
        assertThat(AgentPrompt.invocation(plan, EARLIER, "now", Optional.empty()).command())
                .isEqualTo(
                        "claude -p --output-format stream-json --verbose --permission-mode plan");
        assertThat(AgentPrompt.invocation(plan, EARLIER, "now", Optional.of("s-1")).command())
                .isEqualTo(
                        "claude -p --output-format stream-json --verbose --permission-mode plan"
                                + " --resume s-1");
        assertThat(
                        AgentPrompt.invocation(
                                        template(Harness.CLAUDE_CODE, Optional.empty()),
                                        EARLIER,
                                        "now",
                                        Optional.empty())
                                .command())
                .startsWith("IS_SANDBOX=1 claude ")
                .endsWith(" --permission-mode bypassPermissions");
    }

    @Test
    void anAcpAgentGetsThePromptAloneWhenItsSessionContinuesAndTheTranscriptOtherwise() {
        AgentTemplate acp =
                new AgentTemplate(
                        JsonValue.EMPTY_JSON_OBJECT,
                        Harness.ACP,
                        Optional.empty(),
                        Optional.empty(),
                        true,
                        true,
                        false,
                        Optional.empty(),
                        List.of(),
                        ApprovalRules.NONE,
                        List.of(),
                        SecretBrokering.NONE,
                        Optional.of(
                                dev.agentbox.run.harness.AcpSpec.parse(
                                        jakarta.json.Json.createObjectBuilder()
                                                .add("agent", "gemini")
                                                .build(),
                                        "acp")));
        var fresh = AgentPrompt.invocation(acp, EARLIER, "now", Optional.empty());
        assertThat(fresh.command()).isEqualTo("GEMINI_CLI_NO_RELAUNCH=1 gemini --acp");
        assertThat(fresh.prompt().orElseThrow()).contains("user: a", "assistant: b", "now");
        assertThat(AgentPrompt.invocation(acp, EARLIER, "now", Optional.of("s-1")).prompt())
                .contains("now");
    }
}
