package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** The {@code acp} member: what it accepts, the field a refusal names, the command line. */
class AcpSpecTest {

    static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    static String refusedField(String body) {
        try {
            AcpSpec.parse(json(body), "acp");
        } catch (ProblemException e) {
            return (String) e.extensions().get("field");
        }
        throw new AssertionError("accepted: " + body);
    }

    @Test
    void eachKnownAgentHasItsCommandLine() {
        assertThat(AcpSpec.parse(json("{\"agent\":\"claude\"}"), "acp").commandLine())
                .isEqualTo("IS_SANDBOX=1 claude-code-acp");
        assertThat(AcpSpec.parse(json("{\"agent\":\"gemini\"}"), "acp").commandLine())
                .isEqualTo("GEMINI_CLI_NO_RELAUNCH=1 gemini --acp");
        assertThat(AcpSpec.parse(json("{\"agent\":\"codex\"}"), "acp").commandLine())
                .startsWith("codex-acp ${OPENAI_BASE_URL:+-c ");
    }

    @Test
    void aCustomAgentsCommandArgsAndEnvReachTheShellQuoted() {
        AcpSpec spec =
                AcpSpec.parse(
                        json(
                                "{\"agent\":\"custom\",\"command\":\"node\",\"args\":[\"a b\",\"$(id)\",\"'x'\"],"
                                        + "\"env\":{\"K\":\"v; rm -rf /\"},\"mode\":\"plan\"}"),
                        "acp");
        assertThat(spec.commandLine())
                .isEqualTo("K='v; rm -rf /' 'node' 'a b' '$(id)' ''\\''x'\\'''");
        assertThat(AcpSpec.parse(spec.toJson(), "acp")).isEqualTo(spec);
    }

    @Test
    void aBadMemberIsRefusedNamingItsField() {
        assertThat(refusedField("{\"agent\":\"goose\"}")).isEqualTo("acp.agent");
        assertThat(refusedField("{\"agent\":\"custom\"}")).isEqualTo("acp.command");
        assertThat(refusedField("{\"agent\":\"claude\",\"command\":\"x\"}"))
                .isEqualTo("acp.command");
        assertThat(refusedField("{\"agent\":\"custom\",\"command\":\"x\",\"args\":[1]}"))
                .isEqualTo("acp.args[0]");
        assertThat(refusedField("{\"agent\":\"claude\",\"env\":{\"A-B\":\"x\"}}"))
                .isEqualTo("acp.env.A-B");
        assertThat(refusedField("{\"agent\":\"claude\",\"mode\":\"a b\"}")).isEqualTo("acp.mode");
        assertThat(refusedField("{\"agent\":\"claude\",\"other\":1}")).isEqualTo("acp.other");
        assertThatThrownBy(() -> AcpSpec.parse(Json.createValue(1), "acp"))
                .isInstanceOf(ProblemException.class);
    }
}
