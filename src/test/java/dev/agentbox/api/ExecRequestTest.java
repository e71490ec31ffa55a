package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecRequestTest {

    @Test
    void aWellFormedBodyKeepsEveryField() {
        ExecRequest r =
                ExecRequest.parse(
                        json(
                                "{\"command\":\"ls\",\"cwd\":\"/tmp\",\"env\":{\"A_1\":\"x\"},\"timeoutMs\":1500}"));
        assertThat(r).isEqualTo(new ExecRequest("ls", "/tmp", Map.of("A_1", "x"), 1500L));
    }

    @Test
    void nullMembersCountAsAbsent() {
        assertThat(
                        ExecRequest.parse(
                                json(
                                        "{\"command\":\"ls\",\"cwd\":null,\"env\":null,\"timeoutMs\":null}")))
                .isEqualTo(new ExecRequest("ls", null, Map.of(), null));
    }

    @Test
    void aBodyThatIsNotAnObjectIsRefused() {
        assertInvalid("[\"ls\"]", "body");
        assertInvalid("\"ls\"", "body");
        assertInvalid("5", "body");
    }

    @Test
    void anUnknownMemberIsRefusedRatherThanIgnored() {
        assertInvalid("{\"command\":\"ls\",\"timeoutMS\":5}", "timeoutMS");
    }

    @Test
    void aNumberIsNotCoercedIntoACommandOrCwd() {
        assertInvalid("{\"command\":5}", "command");
        assertInvalid("{\"command\":\"ls\",\"cwd\":3}", "cwd");
    }

    @Test
    void nulCannotReachACommandCwdOrEnvironment() {
        assertInvalid("{\"command\":\"echo a\\u0000b\"}", "command");
        assertInvalid("{\"command\":\"ls\",\"cwd\":\"/tmp\\u0000\"}", "cwd");
        assertInvalid("{\"command\":\"ls\",\"env\":{\"A\":\"x\\u0000\"}}", "env.A");
    }

    @Test
    void environmentNamesAreShellNamesAndValuesStrings() {
        assertInvalid("{\"command\":\"ls\",\"env\":{\"A=B\":\"x\"}}", "env");
        assertInvalid("{\"command\":\"ls\",\"env\":[\"A=1\"]}", "env");
        assertInvalid("{\"command\":\"ls\",\"env\":{\"A\":{}}}", "env.A");
    }

    @Test
    void timeoutIsAPositiveIntegerWithoutTruncationOrWrapAround() {
        assertInvalid("{\"command\":\"ls\",\"timeoutMs\":1.5}", "timeoutMs");
        assertInvalid("{\"command\":\"ls\",\"timeoutMs\":0}", "timeoutMs");
        assertInvalid("{\"command\":\"ls\",\"timeoutMs\":-1}", "timeoutMs");
        assertInvalid("{\"command\":\"ls\",\"timeoutMs\":18446744073709551616}", "timeoutMs");
        assertInvalid("{\"command\":\"ls\",\"timeoutMs\":1e400}", "timeoutMs");
        assertInvalid("{\"command\":\"ls\",\"timeoutMs\":\"soon\"}", "timeoutMs");
    }

    @Test
    void aMissingOrBlankCommandIsRefused() {
        assertInvalid("{}", "command");
        assertInvalid("{\"command\":\" \"}", "command");
        assertThatThrownBy(() -> ExecRequest.parse(null)).isInstanceOf(ProblemException.class);
    }

    private static void assertInvalid(String body, String field) {
        assertThatThrownBy(() -> ExecRequest.parse(json(body)))
                .as(body)
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.status()).isEqualTo(400);
                            assertThat(p.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(p.getMessage()).startsWith(field + " ");
                        });
    }

    private static JsonValue json(String s) {
        return Json.createReader(new StringReader(s)).readValue();
    }
}
