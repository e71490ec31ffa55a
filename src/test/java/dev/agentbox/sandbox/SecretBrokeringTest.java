package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.ImageAllowlist;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A run's {@code brokeredSecrets} and {@code plainSecrets}, and the default brokering of model keys
 * (docs/api.md, "Brokered secrets on every path"), applied to an ensure body's secrets.
 */
class SecretBrokeringTest {

    private static final String EGRESS =
            "\"policy\":{\"network\":\"egress\",\"egress\":{\"allow\":[\"model.test\","
                    + "\"generativelanguage.googleapis.com\"],\"deny\":[\"blocked.test\"]}}";

    private final SandboxSpecParser parser = new SandboxSpecParser(1_800_000, false);

    private final SandboxSpecParser noDefault =
            new SandboxSpecParser(
                    1_800_000,
                    false,
                    new EnsureRules(
                            ImageAllowlist.defaults(),
                            ResourceCeilings.defaults(),
                            true,
                            EgressLimits.defaults().withBrokerModelKeys(false)));

    private static JsonValue json(String s) {
        return Json.createReader(new StringReader(s)).readValue();
    }

    private static SecretBrokering brokering(String brokered, String plain) {
        return SecretBrokering.parse(
                brokered == null ? null : json(brokered), plain == null ? null : json(plain));
    }

    /** An ensure body with these workspace members and this policy. */
    private static String body(String workspace, String policy) {
        return "{\"workspace\":{" + workspace + "}," + policy + "}";
    }

    private SandboxSpec apply(SandboxSpecParser p, String body, SecretBrokering b) {
        return p.withBrokering(p.parse(json(body)), b);
    }

    private static void assertInvalid(Executable call, String field) {
        assertThatThrownBy(call::execute)
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.detail()).startsWith(field + " ");
                            assertThat(e.extensions()).containsEntry("field", field);
                        });
    }

    @Test
    void brokeredSecretsTurnsAPlainValueIntoABrokeredOne() {
        SandboxSpec spec =
                apply(
                        parser,
                        body("\"secrets\":{\"TOKEN\":\"t-1\",\"OTHER\":\"o\"}", EGRESS),
                        brokering("{\"TOKEN\":[\"Model.test\"]}", null));

        assertThat(spec.workspace().secrets()).containsOnlyKeys("OTHER");
        assertThat(spec.workspace().brokered().get("TOKEN").value()).isEqualTo("t-1");
        assertThat(spec.workspace().brokered().get("TOKEN").hosts()).containsExactly("model.test");
        assertThat(spec.workspace().toString()).doesNotContain("t-1");
    }

    @Test
    void aSecretGivenBrokeredKeepsItsOwnHosts() {
        SandboxSpec spec =
                apply(
                        parser,
                        body(
                                "\"secrets\":{\"TOKEN\":{\"value\":\"t-1\",\"brokerHosts\":"
                                        + "[\"api.anthropic.com\"]}}",
                                EGRESS),
                        brokering("{\"TOKEN\":[\"model.test\"]}", "[\"ANTHROPIC_API_KEY\"]"));

        assertThat(spec.workspace().brokered().get("TOKEN").hosts())
                .containsExactly("api.anthropic.com");
    }

    @Test
    void aModelKeyGivenPlainIsBrokeredToItsModelHostByDefault() {
        SandboxSpec spec =
                apply(
                        parser,
                        body(
                                "\"secrets\":{\"ANTHROPIC_API_KEY\":\"sk-a\",\"OPENAI_API_KEY\":\"sk-o\","
                                        + "\"CODEX_API_KEY\":\"sk-c\",\"GEMINI_API_KEY\":\"g\","
                                        + "\"GITHUB_TOKEN\":\"gh\"}",
                                EGRESS),
                        SecretBrokering.NONE);

        assertThat(spec.workspace().secrets()).containsOnlyKeys("GITHUB_TOKEN");
        assertThat(spec.workspace().brokered().get("ANTHROPIC_API_KEY").hosts())
                .containsExactly("api.anthropic.com");
        assertThat(spec.workspace().brokered().get("OPENAI_API_KEY").hosts())
                .containsExactly("api.openai.com");
        assertThat(spec.workspace().brokered().get("CODEX_API_KEY").hosts())
                .containsExactly("api.openai.com");
        assertThat(spec.workspace().brokered().get("GEMINI_API_KEY").hosts())
                .containsExactly("generativelanguage.googleapis.com");
    }

    @Test
    void aModelKeyGoesToTheHostOfItsBaseUrlFromEnvOrSecrets() {
        SandboxSpec spec =
                apply(
                        parser,
                        body(
                                "\"env\":{\"ANTHROPIC_BASE_URL\":\"https://Model.test:8443/v1\"},"
                                        + "\"secrets\":{\"ANTHROPIC_API_KEY\":\"sk-a\","
                                        + "\"OPENAI_BASE_URL\":\"https://model.test/v1\","
                                        + "\"OPENAI_API_KEY\":\"sk-o\"}",
                                EGRESS),
                        SecretBrokering.NONE);

        assertThat(spec.workspace().brokered().get("ANTHROPIC_API_KEY").hosts())
                .containsExactly("model.test");
        assertThat(spec.workspace().brokered().get("OPENAI_API_KEY").hosts())
                .containsExactly("model.test");
        assertThat(spec.workspace().secrets()).containsOnlyKeys("OPENAI_BASE_URL");
    }

    @Test
    void aModelKeyStaysPlainWhereItsHostIsNotAllowed() {
        SandboxSpec spec =
                apply(
                        parser,
                        body(
                                "\"env\":{\"ANTHROPIC_BASE_URL\":\"https://blocked.test\","
                                        + "\"OPENAI_BASE_URL\":\"http://127.0.0.1:9000\"},"
                                        + "\"secrets\":{\"ANTHROPIC_API_KEY\":\"sk-a\","
                                        + "\"OPENAI_API_KEY\":\"sk-o\"}",
                                EGRESS),
                        SecretBrokering.NONE);
        SandboxSpec noGemini =
                apply(
                        parser,
                        body(
                                "\"secrets\":{\"GEMINI_API_KEY\":\"g\"}",
                                "\"policy\":{\"network\":\"egress\"}"),
                        SecretBrokering.NONE);

        assertThat(spec.workspace().secrets())
                .containsOnlyKeys("ANTHROPIC_API_KEY", "OPENAI_API_KEY");
        assertThat(noGemini.workspace().secrets()).containsOnlyKeys("GEMINI_API_KEY");
    }

    @Test
    void noModelKeyIsBrokeredByDefaultOutsideEgressOrWhenTheOperatorTurnedItOff() {
        String secrets = "\"secrets\":{\"ANTHROPIC_API_KEY\":\"sk-a\"}";
        assertThat(
                        apply(
                                        parser,
                                        body(secrets, "\"policy\":{\"network\":\"bridge\"}"),
                                        SecretBrokering.NONE)
                                .workspace()
                                .secrets())
                .containsOnlyKeys("ANTHROPIC_API_KEY");
        assertThat(
                        apply(noDefault, body(secrets, EGRESS), SecretBrokering.NONE)
                                .workspace()
                                .secrets())
                .containsOnlyKeys("ANTHROPIC_API_KEY");
        assertThat(
                        apply(
                                        noDefault,
                                        body(secrets, EGRESS),
                                        brokering("{\"ANTHROPIC_API_KEY\":[\"model.test\"]}", null))
                                .workspace()
                                .brokered())
                .as("brokeredSecrets still brokers")
                .containsOnlyKeys("ANTHROPIC_API_KEY");
    }

    @Test
    void plainSecretsKeepsAModelKeyPlain() {
        SandboxSpec spec =
                apply(
                        parser,
                        body(
                                "\"secrets\":{\"ANTHROPIC_API_KEY\":\"sk-a\",\"OPENAI_API_KEY\":\"sk-o\"}",
                                EGRESS),
                        brokering(null, "[\"ANTHROPIC_API_KEY\"]"));

        assertThat(spec.workspace().secrets()).containsOnlyKeys("ANTHROPIC_API_KEY");
        assertThat(spec.workspace().brokered()).containsOnlyKeys("OPENAI_API_KEY");
    }

    @Test
    void brokeredSecretsNamesOnlyHostsThePolicyAllowsAndNeedsEgress() {
        SandboxSpec egress = parser.parse(json(body("", EGRESS)));
        SandboxSpec none = parser.parse(json("{}"));
        assertInvalid(
                () ->
                        parser.withBrokering(
                                egress, brokering("{\"K\":[\"model.test\",\"other.test\"]}", null)),
                "brokeredSecrets.K[1]");
        assertInvalid(
                () -> parser.withBrokering(egress, brokering("{\"K\":[\"blocked.test\"]}", null)),
                "brokeredSecrets.K[0]");
        assertInvalid(
                () -> parser.withBrokering(none, brokering("{\"K\":[\"model.test\"]}", null)),
                "brokeredSecrets.K");
        assertThatThrownBy(
                        () ->
                                parser.withBrokering(
                                        none, brokering("{\"K\":[\"model.test\"]}", null)))
                .hasMessageContaining("needs sandbox.policy.network \"egress\"");
    }

    @Test
    void malformedBrokeringIsRefusedNamingTheField() {
        assertInvalid(() -> brokering("[]", null), "brokeredSecrets");
        assertInvalid(() -> brokering("{\"1x\":[\"a.test\"]}", null), "brokeredSecrets");
        assertInvalid(() -> brokering("{\"K\":\"a.test\"}", null), "brokeredSecrets.K");
        assertInvalid(() -> brokering("{\"K\":[]}", null), "brokeredSecrets.K");
        assertInvalid(() -> brokering("{\"K\":[\"*.a.test\"]}", null), "brokeredSecrets.K[0]");
        assertInvalid(
                () -> brokering("{\"K\":[\"a.test\",\"A.test\"]}", null), "brokeredSecrets.K[1]");
        assertInvalid(() -> brokering(null, "{}"), "plainSecrets");
        assertInvalid(() -> brokering(null, "[\"K\",5]"), "plainSecrets[1]");
        assertInvalid(() -> brokering(null, "[\"K\",\"K\"]"), "plainSecrets[1]");
    }

    @Test
    void aNameBothBrokeredAndPlainIsAConflict() {
        assertInvalid(() -> brokering("{\"K\":[\"a.test\"]}", "[\"L\",\"K\"]"), "plainSecrets[1]");
    }

    @Test
    void theRulesRoundTripThroughTheirJson() {
        SecretBrokering b = brokering("{\"K\":[\"a.test\",\"b.test\"]}", "[\"P\"]");
        var o = b.addTo(Json.createObjectBuilder()).build();

        assertThat(SecretBrokering.parse(o.get("brokeredSecrets"), o.get("plainSecrets")))
                .isEqualTo(b);
        assertThat(b.brokered().get("K")).isEqualTo(List.of("a.test", "b.test"));
        assertThat(SecretBrokering.NONE.addTo(Json.createObjectBuilder()).build()).isEmpty();
    }
}
