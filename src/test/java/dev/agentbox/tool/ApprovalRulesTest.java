package dev.agentbox.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.RunRequest;
import dev.agentbox.sandbox.SandboxSpecParser;
import dev.agentbox.tool.ApprovalRules.Decision;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** Approval rules: first match wins, default allow, bad rules named by field (AP-01). */
class ApprovalRulesTest {

    private static JsonValue json(String s) {
        return Json.createReader(new StringReader(s)).readValue();
    }

    private static ApprovalRules rules(String s) {
        return ApprovalRules.parse(json(s), "approvals");
    }

    private static String refusedField(String approvals) {
        try {
            rules(approvals);
        } catch (ProblemException e) {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.code().code()).isEqualTo("invalid-request");
            return (String) e.extensions().get("field");
        }
        throw new AssertionError("not refused: " + approvals);
    }

    @Test
    void theFirstMatchingRuleDecidesAndAToolNoRuleMatchesIsAllowed() {
        ApprovalRules r =
                rules(
                        "[{\"tool\":\"mcp__agentbox__deploy\",\"decision\":\"deny\"},"
                                + "{\"tool\":\"mcp__agentbox__*\",\"decision\":\"ask\"},"
                                + "{\"tool\":\"Bash\",\"decision\":\"ask\"},"
                                + "{\"tool\":\"*\",\"decision\":\"allow\"}]");

        assertThat(r.decide("mcp__agentbox__deploy")).isEqualTo(Decision.DENY);
        assertThat(r.decide("mcp__agentbox__search")).isEqualTo(Decision.ASK);
        assertThat(r.decide("Bash")).isEqualTo(Decision.ASK);
        assertThat(r.decide("bash")).as("case-sensitive").isEqualTo(Decision.ALLOW);
        assertThat(ApprovalRules.NONE.decide("anything")).isEqualTo(Decision.ALLOW);
        assertThat(rules("[{\"tool\":\"Edit\",\"decision\":\"deny\"}]").decide("Read"))
                .isEqualTo(Decision.ALLOW);
    }

    @Test
    void globsMatchTheWholeNameWithStarAndQuestionMarkAndEverythingElseLiterally() {
        ApprovalRules r =
                rules(
                        "[{\"tool\":\"a?c\",\"decision\":\"deny\"},"
                                + "{\"tool\":\"x.*(y)\",\"decision\":\"ask\"}]");

        assertThat(r.decide("abc")).isEqualTo(Decision.DENY);
        assertThat(r.decide("ac")).isEqualTo(Decision.ALLOW);
        assertThat(r.decide("abcd")).as("whole name").isEqualTo(Decision.ALLOW);
        assertThat(r.decide("x.anything(y)")).isEqualTo(Decision.ASK);
        assertThat(r.decide("x.(y)")).isEqualTo(Decision.ASK);
        assertThat(r.decide("xa(y)")).as("the dot is literal").isEqualTo(Decision.ALLOW);
    }

    @Test
    void theStoredFormParsesBackToTheSameRules() {
        ApprovalRules r =
                rules(
                        "[{\"tool\":\"B*\",\"decision\":\"ask\"},{\"tool\":\"*\",\"decision\":\"deny\"}]");

        assertThat(ApprovalRules.fromJson(r.toJson())).isEqualTo(r);
        assertThat(rules("null")).isEqualTo(ApprovalRules.NONE);
        assertThat(rules("[]").isEmpty()).isTrue();
    }

    @Test
    void badRulesAreRefusedNamingTheExactField() {
        assertThat(refusedField("{}")).isEqualTo("approvals");
        assertThat(refusedField("[\"Bash\"]")).isEqualTo("approvals[0]");
        assertThat(refusedField("[{\"tool\":\"a\",\"decision\":\"allow\"},{\"decision\":\"ask\"}]"))
                .isEqualTo("approvals[1].tool");
        assertThat(refusedField("[{\"tool\":\"\",\"decision\":\"ask\"}]"))
                .isEqualTo("approvals[0].tool");
        assertThat(refusedField("[{\"tool\":7,\"decision\":\"ask\"}]"))
                .isEqualTo("approvals[0].tool");
        assertThat(refusedField("[{\"tool\":\"" + "t".repeat(201) + "\",\"decision\":\"ask\"}]"))
                .isEqualTo("approvals[0].tool");
        assertThat(refusedField("[{\"tool\":\"a\\nb\",\"decision\":\"ask\"}]"))
                .isEqualTo("approvals[0].tool");
        assertThat(refusedField("[{\"tool\":\"a\",\"decision\":\"maybe\"}]"))
                .isEqualTo("approvals[0].decision");
        assertThat(refusedField("[{\"tool\":\"a\",\"decision\":\"ASK\"}]"))
                .isEqualTo("approvals[0].decision");
        assertThat(refusedField("[{\"tool\":\"a\",\"decision\":\"ask\",\"why\":1}]"))
                .isEqualTo("approvals[0].why");
        String many = "{\"tool\":\"a\",\"decision\":\"ask\"},".repeat(101);
        assertThat(refusedField("[" + many.substring(0, many.length() - 1) + "]"))
                .isEqualTo("approvals");
    }

    @Test
    void aRunRequestCarriesItsRulesAndRefusesBadOnesNamingTheField() {
        SandboxSpecParser parser = new SandboxSpecParser(1_800_000, false);
        String run =
                "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},\"command\":\"true\"";
        RunRequest r =
                RunRequest.parse(
                        json(run + ",\"approvals\":[{\"tool\":\"B*\",\"decision\":\"deny\"}]}"),
                        parser);
        assertThat(r.approvals().decide("Bash")).isEqualTo(Decision.DENY);
        assertThat(RunRequest.parse(json(run + "}"), parser).approvals())
                .isEqualTo(ApprovalRules.NONE);
        try {
            RunRequest.parse(
                    json(run + ",\"approvals\":[{\"tool\":\"B*\",\"decision\":\"no\"}]}"), parser);
            throw new AssertionError("not refused");
        } catch (ProblemException e) {
            assertThat(e.extensions()).containsEntry("field", "approvals[0].decision");
        }
    }
}
