package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.sandbox.SandboxSpecParser;
import jakarta.json.Json;
import java.io.StringReader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunRequestPromptTest {

    private static RunRequest parse(String body) {
        return RunRequest.parse(
                Json.createReader(new StringReader(body)).read(),
                new SandboxSpecParser(1_800_000, false));
    }

    @Test
    void aCommandRunWithAPromptReadsItOnStdin() {
        assertThat(
                        parse(
                                        "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},"
                                                + "\"command\":\"cat\",\"prompt\":\"hi $(x)\"}")
                                .agentInvocation())
                .isEqualTo(new AgentInvocation("cat", Optional.of("hi $(x)")));
    }

    @Test
    void aCommandRunWithoutAPromptHasNoStdin() {
        assertThat(
                        parse(
                                        "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},"
                                                + "\"command\":\"cat\"}")
                                .agentInvocation())
                .isEqualTo(AgentInvocation.of("cat"));
    }

    @Test
    void aCliRunRunsInItsPermissionModeBypassPermissionsUnlessItNamesAnother() {
        String cli =
                "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},\"prompt\":\"p\",";
        assertThat(parse(cli + "\"harness\":\"claude-code\"}").agentInvocation().command())
                .isEqualTo(
                        "IS_SANDBOX=1 claude -p --output-format stream-json --verbose"
                                + " --permission-mode bypassPermissions");
        assertThat(
                        parse(
                                        cli
                                                + "\"harness\":\"claude-code\",\"permissionMode\":\"acceptEdits\"}")
                                .agentInvocation()
                                .command())
                .isEqualTo(
                        "claude -p --output-format stream-json --verbose"
                                + " --permission-mode acceptEdits");
        assertThat(parse(cli + "\"harness\":\"codex\"}").agentInvocation().command())
                .isEqualTo(
                        "codex exec --json --skip-git-repo-check"
                                + " --dangerously-bypass-approvals-and-sandbox -");
        assertThat(
                        parse(cli + "\"harness\":\"codex\",\"permissionMode\":\"default\"}")
                                .agentInvocation()
                                .command())
                .isEqualTo("codex exec --json --skip-git-repo-check -c sandbox_mode=read-only -");
        assertThat(
                        parse(cli + "\"harness\":\"codex\",\"permissionMode\":null}")
                                .effectivePermissionMode())
                .isEqualTo(PermissionMode.BYPASS_PERMISSIONS);
    }

    @Test
    void aBadPermissionModeIsRefusedNamingTheField() {
        String cli =
                "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},\"prompt\":\"p\",";
        for (String body :
                new String[] {
                    cli + "\"harness\":\"claude-code\",\"permissionMode\":\"yolo\"}",
                    cli + "\"harness\":\"claude-code\",\"permissionMode\":\"BypassPermissions\"}",
                    cli + "\"harness\":\"codex\",\"permissionMode\":1}",
                    cli + "\"harness\":\"codex\",\"permissionMode\":\"\"}",
                    cli + "\"command\":\"cat\",\"permissionMode\":\"plan\"}"
                }) {
            assertThatThrownBy(() -> parse(body))
                    .as(body)
                    .isInstanceOfSatisfying(
                            ProblemException.class,
                            e -> {
                                assertThat(e.status()).isEqualTo(400);
                                assertThat(e.extensions()).containsEntry("field", "permissionMode");
                            });
        }
    }

    @Test
    void anAcpRunNeedsItsAgentAndPromptAndNoOtherHarnessTakesOne() {
        String base = "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},";
        RunRequest acp =
                parse(
                        base
                                + "\"harness\":\"acp\",\"prompt\":\"p\",\"acp\":{\"agent\":\"claude\"}}");
        assertThat(acp.agentInvocation())
                .isEqualTo(new AgentInvocation("IS_SANDBOX=1 claude-code-acp", Optional.of("p")));
        assertThat(acp.withAcpSession(Optional.of("s-1")).acp().orElseThrow().continueSession())
                .contains("s-1");
        assertThatThrownBy(() -> parse(base + "\"harness\":\"acp\",\"prompt\":\"p\"}"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.extensions()).containsEntry("field", "acp"));
        assertThatThrownBy(
                        () -> parse(base + "\"command\":\"cat\",\"acp\":{\"agent\":\"claude\"}}"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.extensions()).containsEntry("field", "acp"));
        assertThatThrownBy(
                        () -> parse(base + "\"harness\":\"acp\",\"acp\":{\"agent\":\"claude\"}}"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.extensions()).containsEntry("field", "prompt"));
    }
}
