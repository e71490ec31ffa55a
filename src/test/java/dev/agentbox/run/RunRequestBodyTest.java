package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxSpecParser;
import jakarta.json.Json;
import java.io.StringReader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunRequestBodyTest {

    private static final String SANDBOX = "\"sandbox\":{\"key\":\"k\"}";

    private static RunRequest parse(String body) {
        return RunRequest.parse(
                Json.createReader(new StringReader(body)).readValue(),
                new SandboxSpecParser(1_800_000, false));
    }

    private static String run(String members) {
        return "{\"runId\":\"r\",\"threadId\":\"t\","
                + SANDBOX
                + ",\"command\":\"true\""
                + members
                + "}";
    }

    @Test
    void aMinimalCommandRunGetsTheDefaults() {
        RunRequest r = parse(run(""));
        assertThat(r.runId()).isEqualTo("r");
        assertThat(r.sandboxKey()).contains("k");
        assertThat(r.durable()).isTrue();
        assertThat(r.detachOnDisconnect()).isTrue();
        assertThat(r.destroyOnComplete()).isFalse();
        assertThat(r.fileEvents()).isFalse();
        assertThat(r.maxDurationMs()).isEmpty();
    }

    @Test
    void nullMembersCountAsAbsent() {
        RunRequest r =
                parse(
                        run(
                                ",\"durable\":null,\"maxDurationMs\":null,\"approvals\":null,\"prompt\":null"));
        assertThat(r.durable()).isTrue();
        assertThat(r.prompt()).isEmpty();
        assertThat(r.maxDurationMs()).isEmpty();
    }

    @Test
    void aNonDurableRunWithoutAnIdGetsOne() {
        assertThat(
                        parse(
                                        "{\"threadId\":\"t\","
                                                + SANDBOX
                                                + ",\"command\":\"true\",\"durable\":false}")
                                .runId())
                .startsWith("run-");
    }

    @Test
    void aDurableRunWithoutAnIdIsRefusedWithItsOwnCode() {
        assertThatThrownBy(() -> parse("{\"threadId\":\"t\"," + SANDBOX + ",\"command\":\"true\"}"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> assertThat(p.code()).isEqualTo(ProblemCode.RUN_ID_REQUIRED));
    }

    @Test
    void eachMemberIsCheckedAndNamed() {
        assertInvalid(run(",\"comand\":\"x\""), "comand");
        assertInvalid(run("").replace("\"r\"", "5"), "runId");
        assertInvalid(run("").replace("\"r\"", "\"\""), "runId");
        assertInvalid(run("").replace("\"r\"", "\"" + "r".repeat(201) + "\""), "runId");
        assertInvalid(run("").replace("\"r\"", "\"r\\r\\nINFO forged\""), "runId");
        assertInvalid(run("").replace("\"r\"", "\"r\\u001b[2J\""), "runId");
        assertInvalid(run("").replace("\"t\"", "\"" + "t".repeat(300) + "\""), "threadId");
        assertInvalid(run("").replace("\"threadId\":\"t\",", ""), "threadId");
        assertInvalid(run("").replace(SANDBOX, "\"sandbox\":\"k\""), "sandbox");
        assertInvalid(run("").replace(SANDBOX, "\"sandbox\":null"), "sandbox");
        assertInvalid(run("").replace(SANDBOX, "\"sandbox\":{\"key\":5}"), "sandbox.key");
        assertInvalid(run(",\"durable\":\"yes\""), "durable");
        assertInvalid(run(",\"harness\":\"bash\""), "harness");
        assertInvalid(run(",\"harness\":5"), "harness");
        assertInvalid(run(",\"permissionMode\":\"plan\""), "permissionMode");
        assertInvalid(run(",\"approvals\":{}"), "approvals");
    }

    @Test
    void maxDurationIsANonNegativeIntegerThatCannotOverflow() {
        assertThat(parse(run(",\"maxDurationMs\":0")).maxDurationMs()).isEqualTo(Optional.of(0L));
        assertThat(parse(run(",\"maxDurationMs\":4611686018427387903")).maxDurationMs())
                .contains(4611686018427387903L);
        for (String bad :
                new String[] {
                    "-1", "1e30", "1.5", "\"5\"", "4611686018427387904", "18446744073709551616"
                }) {
            assertInvalid(run(",\"maxDurationMs\":" + bad), "maxDurationMs");
        }
    }

    @Test
    void aMissingSandboxSaysWhatItMayBe() {
        String detail = "sandbox is required: {\"key\"} of a sandbox or an ensure body";
        for (String sandbox : new String[] {"\"sandbox\":null", "\"sandbox\":\"k\""}) {
            assertThatThrownBy(() -> parse(run("").replace(SANDBOX, sandbox)))
                    .isInstanceOfSatisfying(
                            ProblemException.class, p -> assertThat(p.detail()).isEqualTo(detail));
        }
    }

    @Test
    void aSandboxSpecsFieldGainsItsPrefix() {
        assertInvalid(run("").replace(SANDBOX, "\"sandbox\":{\"polcy\":{}}"), "sandbox.polcy");
    }

    @Test
    void secretBrokeringAppliesToAnEnsureBodysSecretsAndNamesItsOwnFields() {
        String egress =
                "\"sandbox\":{\"policy\":{\"network\":\"egress\",\"egress\":{\"allow\":[\"m.test\"]}},"
                        + "\"workspace\":{\"secrets\":{\"K\":\"v\",\"ANTHROPIC_API_KEY\":\"sk\"}}}";
        RunRequest r =
                parse(
                        run(",\"brokeredSecrets\":{\"K\":[\"m.test\"]},\"plainSecrets\":[\"ANTHROPIC_API_KEY\"]")
                                .replace(SANDBOX, egress));

        assertThat(r.sandboxSpec().orElseThrow().workspace().brokered()).containsOnlyKeys("K");
        assertThat(r.sandboxSpec().orElseThrow().workspace().secrets())
                .containsOnlyKeys("ANTHROPIC_API_KEY");
        assertThat(r.brokering().plain()).containsExactly("ANTHROPIC_API_KEY");
        assertInvalid(
                run(",\"brokeredSecrets\":{\"K\":[\"x.test\"]}").replace(SANDBOX, egress),
                "brokeredSecrets.K[0]");
        assertInvalid(run(",\"brokeredSecrets\":{\"K\":[\"m.test\"]}"), "brokeredSecrets");
        assertInvalid(run(",\"plainSecrets\":[\"K\"]"), "plainSecrets");
    }

    private static void assertInvalid(String body, String field) {
        assertThatThrownBy(() -> parse(body))
                .as(body)
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(p.extensions().get("field")).isEqualTo(field);
                            assertThat(p.detail()).startsWith(field + " ");
                        });
    }
}
