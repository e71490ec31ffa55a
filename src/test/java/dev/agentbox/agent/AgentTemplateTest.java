package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.sandbox.GivenSecrets;
import dev.agentbox.sandbox.SandboxSpecParser;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AgentTemplateTest {

    private final SandboxSpecParser parser = new SandboxSpecParser(1_800_000, false);

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    private AgentTemplate parse(String body) {
        return AgentTemplate.parse(json(body), parser);
    }

    private static String fieldOf(Runnable r) {
        try {
            r.run();
        } catch (ProblemException e) {
            assertThat(e.status()).isEqualTo(400);
            return (String) e.extensions().get("field");
        }
        throw new AssertionError("not refused");
    }

    @Test
    void aCommandDefinitionGetsTheRunDefaultsAndRoundTripsThroughItsStoredForm() {
        AgentTemplate t =
                parse(
                        "{\"sandbox\":{\"definitionId\":\"d\"},\"harness\":\"command\",\"command\":\"cat\"}");

        assertThat(t.harness()).isEqualTo(Harness.COMMAND);
        assertThat(t.command()).contains("cat");
        assertThat(t.durable()).isTrue();
        assertThat(t.detachOnDisconnect()).isTrue();
        assertThat(t.destroyOnComplete()).isFalse();
        assertThat(t.maxDurationMs()).isEmpty();
        assertThat(AgentTemplate.fromJson(t.toJson())).isEqualTo(t);
    }

    @Test
    void aCliDefinitionNeedsNoCommandAndKeepsItsOptions() {
        AgentTemplate t =
                parse(
                        "{\"sandbox\":{},\"harness\":\"claude-code\",\"durable\":false,"
                                + "\"destroyOnComplete\":true,\"maxDurationMs\":60000}");

        assertThat(t.command()).isEmpty();
        assertThat(t.durable()).isFalse();
        assertThat(t.destroyOnComplete()).isTrue();
        assertThat(t.maxDurationMs()).contains(60000L);
        assertThat(t.permissionMode()).isEmpty();
        assertThat(t.effectivePermissionMode()).isEqualTo(PermissionMode.BYPASS_PERMISSIONS);
        assertThat(AgentTemplate.fromJson(t.toJson())).isEqualTo(t);
    }

    @Test
    void aCliDefinitionKeepsItsPermissionModeAndRefusesOneItCannotUse() {
        AgentTemplate t =
                parse("{\"sandbox\":{},\"harness\":\"codex\",\"permissionMode\":\"plan\"}");

        assertThat(t.permissionMode()).contains(PermissionMode.PLAN);
        assertThat(t.toJson().getString("permissionMode")).isEqualTo("plan");
        assertThat(AgentTemplate.fromJson(t.toJson())).isEqualTo(t);
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{},\"harness\":\"claude-code\","
                                                        + "\"permissionMode\":\"yolo\"}")))
                .isEqualTo("permissionMode");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{},\"command\":\"x\","
                                                        + "\"permissionMode\":\"plan\"}")))
                .isEqualTo("permissionMode");
    }

    @Test
    void secretsAnywhereInTheSandboxAreRefusedNamingThePath() {
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{\"workspace\":{\"secrets\":{}}},\"command\":\"x\"}")))
                .isEqualTo("sandbox.workspace.secrets");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{\"workspace\":{\"setup\":[{\"secrets\":1}]}},\"command\":\"x\"}")))
                .isEqualTo("sandbox.workspace.setup[0].secrets");
    }

    @Test
    void badMembersAreRefusedNamingTheField() {
        assertThat(fieldOf(() -> parse("{\"sandbox\":{},\"command\":\"x\",\"runId\":\"r\"}")))
                .isEqualTo("runId");
        assertThat(fieldOf(() -> parse("{\"command\":\"x\"}"))).isEqualTo("sandbox");
        assertThat(fieldOf(() -> parse("{\"sandbox\":{\"key\":\"k\"},\"command\":\"x\"}")))
                .isEqualTo("sandbox.key");
        assertThat(fieldOf(() -> parse("{\"sandbox\":{\"threadId\":\"t\"},\"command\":\"x\"}")))
                .isEqualTo("sandbox.threadId");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{\"lifecycle\":{\"reuse\":\"definition\"}},\"command\":\"x\"}")))
                .isEqualTo("sandbox.lifecycle.reuse");
        assertThat(fieldOf(() -> parse("{\"sandbox\":{\"polcy\":{}},\"command\":\"x\"}")))
                .isEqualTo("sandbox.polcy");
        assertThat(fieldOf(() -> parse("{\"sandbox\":{},\"harness\":\"command\"}")))
                .isEqualTo("command");
        assertThat(fieldOf(() -> parse("{\"sandbox\":{},\"command\":\"x\",\"durable\":1}")))
                .isEqualTo("durable");
    }

    @Test
    void agentIdsAreASafeCharsetOf1To200Characters() {
        assertThat(AgentTemplate.requireAgentId("a.b_c-9")).isEqualTo("a.b_c-9");
        assertThat(AgentTemplate.requireAgentId("x".repeat(200))).hasSize(200);
        for (String bad : new String[] {"", ".x", "a b", "a/b", "x".repeat(201), "ä"}) {
            assertThatThrownBy(() -> AgentTemplate.requireAgentId(bad))
                    .isInstanceOf(ProblemException.class)
                    .extracting(e -> ((ProblemException) e).extensions().get("field"))
                    .isEqualTo("agentId");
        }
    }

    @Test
    void eachThreadGetsTheTemplateWithItsThreadIdThreadReuseAndTheRunsSecrets() {
        JsonObject sandbox = json("{\"definitionId\":\"d\",\"workspace\":{\"env\":{\"A\":\"1\"}}}");

        JsonObject forThread =
                AgentTemplate.forThread(
                        sandbox, "t-1", new GivenSecrets(Map.of("KEY", "v"), Map.of()));

        assertThat(forThread.getString("threadId")).isEqualTo("t-1");
        assertThat(forThread.getJsonObject("lifecycle").getString("reuse")).isEqualTo("thread");
        assertThat(forThread.getJsonObject("workspace").getJsonObject("env").getString("A"))
                .isEqualTo("1");
        assertThat(forThread.getJsonObject("workspace").getJsonObject("secrets").getString("KEY"))
                .isEqualTo("v");
        assertThat(parser.parse(forThread).threadId()).isEqualTo(Optional.of("t-1"));
        assertThat(
                        AgentTemplate.forThread(sandbox, "t-1", GivenSecrets.NONE)
                                .getJsonObject("workspace"))
                .doesNotContainKey("secrets");
    }

    @Test
    void aDefinitionsSandboxMayCarryAnEgressPolicyThatEachThreadsEnsureKeeps() {
        JsonObject sandbox =
                json(
                        "{\"policy\":{\"network\":\"egress\",\"egress\":"
                                + "{\"allow\":[\"api.anthropic.com\",\"*.npmjs.org\"],"
                                + "\"deny\":[\"private.npmjs.org\"]}}}");
        AgentTemplate t =
                AgentTemplate.parse(
                        Json.createObjectBuilder()
                                .add("sandbox", sandbox)
                                .add("harness", "claude-code")
                                .build(),
                        parser);

        assertThat(AgentTemplate.fromJson(t.toJson())).isEqualTo(t);
        SandboxPolicy policy =
                parser.parse(AgentTemplate.forThread(t.sandbox(), "t-1", GivenSecrets.NONE))
                        .policy();
        assertThat(policy.network()).isEqualTo(SandboxPolicy.Network.EGRESS);
        assertThat(policy.egress().allow())
                .extracting(EgressRule::text)
                .containsExactly("api.anthropic.com", "*.npmjs.org");
        assertThat(policy.egress().deny())
                .extracting(EgressRule::text)
                .containsExactly("private.npmjs.org");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{\"policy\":{\"network\":\"egress\","
                                                        + "\"egress\":{\"allow\":[\"ok.example\",\"*.com\"]}}},"
                                                        + "\"command\":\"x\"}")))
                .isEqualTo("sandbox.policy.egress.allow[1]");
    }

    @Test
    void aDefinitionsSecretBrokeringIsCheckedAgainstItsPolicyAndReachesEachThreadsRun() {
        String egress =
                "{\"policy\":{\"network\":\"egress\",\"egress\":{\"allow\":[\"model.test\"]}}}";
        AgentTemplate t =
                parse(
                        "{\"sandbox\":"
                                + egress
                                + ",\"harness\":\"claude-code\","
                                + "\"brokeredSecrets\":{\"TOKEN\":[\"model.test\"]},"
                                + "\"plainSecrets\":[\"ANTHROPIC_API_KEY\"]}");

        assertThat(AgentTemplate.fromJson(t.toJson())).isEqualTo(t);
        assertThat(t.toJson().getJsonObject("brokeredSecrets").toString())
                .isEqualTo("{\"TOKEN\":[\"model.test\"]}");
        var spec =
                parser.withBrokering(
                        parser.parse(
                                AgentTemplate.forThread(
                                        t.sandbox(),
                                        "t-1",
                                        new GivenSecrets(
                                                Map.of("TOKEN", "tk", "ANTHROPIC_API_KEY", "sk"),
                                                Map.of()))),
                        t.brokering());
        assertThat(spec.workspace().brokered()).containsOnlyKeys("TOKEN");
        assertThat(spec.workspace().secrets()).containsOnlyKeys("ANTHROPIC_API_KEY");

        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":"
                                                        + egress
                                                        + ",\"harness\":\"claude-code\","
                                                        + "\"brokeredSecrets\":{\"TOKEN\":[\"other.test\"]}}")))
                .isEqualTo("brokeredSecrets.TOKEN[0]");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{},\"harness\":\"claude-code\","
                                                        + "\"brokeredSecrets\":{\"TOKEN\":[\"model.test\"]}}")))
                .isEqualTo("brokeredSecrets.TOKEN");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":"
                                                        + egress
                                                        + ",\"harness\":\"claude-code\","
                                                        + "\"brokeredSecrets\":{\"TOKEN\":[\"model.test\"]},"
                                                        + "\"plainSecrets\":[\"TOKEN\"]}")))
                .isEqualTo("plainSecrets[0]");
    }

    @Test
    void httpToolsAreKeptValidatedAndRoundTripThroughTheStoredForm() {
        AgentTemplate t =
                parse(
                        "{\"sandbox\":{},\"harness\":\"claude-code\",\"tools\":[{\"name\":\"weather\","
                                + "\"description\":\"The weather\",\"parameters\":{\"type\":\"object\","
                                + "\"properties\":{\"city\":{\"type\":\"string\"}}},"
                                + "\"url\":\"https://tools.example/weather\"}]}");

        assertThat(t.tools()).hasSize(1);
        assertThat(t.tools().get(0).name()).isEqualTo("weather");
        assertThat(t.tools().get(0).url().getHost()).isEqualTo("tools.example");
        assertThat(t.toJson().getJsonArray("tools")).hasSize(1);
        assertThat(AgentTemplate.fromJson(t.toJson())).isEqualTo(t);
        assertThat(parse("{\"sandbox\":{},\"harness\":\"claude-code\"}").toJson())
                .doesNotContainKey("tools");
    }

    @Test
    void theBridgesReservedApproveToolNameIsRefused() {
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{},\"harness\":\"claude-code\",\"tools\":"
                                                        + "[{\"name\":\"approve\",\"url\":\"https://x/\"}]}")))
                .isEqualTo("tools[0].name");
    }

    @Test
    void aToolThatIsNotOneIsRefusedNamingIt() {
        String head = "{\"sandbox\":{},\"harness\":\"claude-code\",\"tools\":";
        assertThat(fieldOf(() -> parse(head + "{}}"))).isEqualTo("tools");
        assertThat(fieldOf(() -> parse(head + "[\"t\"]}"))).isEqualTo("tools[0]");
        assertThat(fieldOf(() -> parse(head + "[null]}"))).isEqualTo("tools[0]");
        String many = String.join(",", java.util.Collections.nCopies(33, "{}"));
        assertThat(fieldOf(() -> parse(head + "[" + many + "]}"))).isEqualTo("tools");
        assertThat(fieldOf(() -> parse(head + "[{\"name\":\"a b\",\"url\":\"https://x/\"}]}")))
                .isEqualTo("tools[0]");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                head
                                                        + "[{\"name\":\"a\",\"url\":\"file:///etc/passwd\"}]}")))
                .isEqualTo("tools[0]");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                head
                                                        + "[{\"name\":\"a\",\"url\":\"https://x/\","
                                                        + "\"parameters\":{\"type\":\"string\"}}]}")))
                .isEqualTo("tools[0].parameters");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                head
                                                        + "[{\"name\":\"a\",\"url\":\"https://x/\"},"
                                                        + "{\"name\":\"a\",\"url\":\"https://y/\"}]}")))
                .isEqualTo("tools[1].name");
    }

    @Test
    void aDefinitionsApprovalsRoundTripThroughItsStoredFormAndBadOnesNameTheirField() {
        AgentTemplate t =
                parse(
                        "{\"sandbox\":{},\"harness\":\"claude-code\","
                                + "\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]}");

        assertThat(t.approvals().decide("Bash"))
                .isEqualTo(dev.agentbox.tool.ApprovalRules.Decision.ASK);
        assertThat(t.toJson().getJsonArray("approvals")).hasSize(1);
        assertThat(AgentTemplate.fromJson(t.toJson())).isEqualTo(t);
        assertThat(parse("{\"sandbox\":{},\"harness\":\"codex\"}").toJson())
                .doesNotContainKey("approvals");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "{\"sandbox\":{},\"harness\":\"codex\","
                                                        + "\"approvals\":[{\"tool\":\"*\"}]}")))
                .isEqualTo("approvals[0].decision");
    }
}
