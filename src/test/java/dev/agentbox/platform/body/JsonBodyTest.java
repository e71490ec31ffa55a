package dev.agentbox.platform.body;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonBodyTest {

    public record Step(@NotBlank(message = "is an empty command") @NoNul String command) {}

    public record Limits(@Max(value = 64, message = "is too many") Integer pids, Boolean strict) {}

    public record Body(
            @NotBlank(message = "is required") @Printable @Size(max = 10, message = "is too long")
                    String id,
            Long count,
            @TypeMismatch(value = "must be an object of strings", elements = "must be a string")
                    Map<
                                    @Pattern(
                                            regexp = "[A-Z]+",
                                            message = "names must be upper case")
                                    String,
                                    @NotNull(message = "must be a string") @NoNul String>
                            env,
            List<@NotNull(message = "must be a step") @Valid Step> steps,
            @Valid Limits limits,
            JsonValue extra) {}

    @Test
    void aWellFormedBodyIsBoundIntoItsRecord() {
        Body b =
                read(
                        "{\"id\":\"a\",\"count\":100,\"env\":{\"A\":\"x\"},\"steps\":[{\"command\":\"ls\"}],"
                                + "\"limits\":{\"pids\":3,\"strict\":true},\"extra\":[1,{\"x\":null}]}");
        assertThat(b.id()).isEqualTo("a");
        assertThat(b.count()).isEqualTo(100L);
        assertThat(b.env()).isEqualTo(Map.of("A", "x"));
        assertThat(b.steps()).containsExactly(new Step("ls"));
        assertThat(b.limits()).isEqualTo(new Limits(3, true));
        assertThat(b.extra().toString()).isEqualTo("[1,{\"x\":null}]");
    }

    @Test
    void nullMembersCountAsAbsent() {
        Body b = read("{\"id\":\"a\",\"count\":null,\"env\":null,\"steps\":null,\"limits\":null}");
        assertThat(b.count()).isNull();
        assertThat(b.env()).isNull();
        assertThat(b.steps()).isNull();
        assertThat(b.limits()).isNull();
    }

    @Test
    void aBodyThatIsNotAnObjectIsRefusedAsTheBody() {
        assertInvalid("[]", "body", "body must be a JSON object");
        assertInvalid("\"a\"", "body", "body must be a JSON object");
        assertInvalid("null", "body", "body must be a JSON object");
    }

    @Test
    void unknownMembersAreRefusedAtTheirPathNamingTheKnownOnes() {
        assertInvalid(
                "{\"id\":\"a\",\"ids\":1}",
                "ids",
                "ids is not a known field (known: id, count, env, steps, limits, extra)");
        assertInvalid(
                "{\"id\":\"a\",\"limits\":{\"pid\":1}}",
                "limits.pid",
                "limits.pid is not a known field (known: pids, strict)");
        assertInvalid(
                "{\"id\":\"a\",\"steps\":[{\"command\":\"ls\"},{\"cmd\":\"ls\"}]}",
                "steps[1].cmd",
                "steps[1].cmd is not a known field (known: command)");
    }

    @Test
    void wrongJsonTypesAreRefusedRatherThanCoerced() {
        assertInvalid("{\"id\":5}", "id", "id must be a string");
        assertInvalid("{\"id\":\"a\",\"count\":\"5\"}", "count", "count must be an integer");
        assertInvalid("{\"id\":\"a\",\"count\":1.5}", "count", "count must be an integer");
        assertInvalid(
                "{\"id\":\"a\",\"env\":[\"A=1\"]}", "env", "env must be an object of strings");
        assertInvalid("{\"id\":\"a\",\"env\":{\"A\":1}}", "env.A", "env.A must be a string");
        assertInvalid("{\"id\":\"a\",\"steps\":{}}", "steps", "steps must be a JSON array");
        assertInvalid(
                "{\"id\":\"a\",\"steps\":[\"ls\"]}", "steps[0]", "steps[0] must be a JSON object");
        assertInvalid(
                "{\"id\":\"a\",\"limits\":{\"strict\":\"yes\"}}",
                "limits.strict",
                "limits.strict must be true or false");
    }

    @Test
    void integersOutsideTheirTypeAreRefusedRatherThanWrapped() {
        assertInvalid(
                "{\"id\":\"a\",\"count\":18446744073709551616}", "count", "count is out of range");
        assertInvalid("{\"id\":\"a\",\"count\":1e400}", "count", "count must be an integer");
        assertInvalid(
                "{\"id\":\"a\",\"limits\":{\"pids\":4294967302}}",
                "limits.pids",
                "limits.pids is out of range");
    }

    @Test
    void violationsNameTheFieldAsAClientSpellsIt() {
        assertInvalid("{}", "id", "id is required");
        assertInvalid(
                "{\"id\":\"a\\nb\"}",
                "id",
                "id must be printable (no control characters) at index 1");
        assertInvalid(
                "{\"id\":\"a\",\"env\":{\"a\":\"x\"}}", "env", "env names must be upper case");
        assertInvalid("{\"id\":\"a\",\"env\":{\"A\":null}}", "env.A", "env.A must be a string");
        assertInvalid(
                "{\"id\":\"a\",\"env\":{\"A\":\"x\\u0000\"}}",
                "env.A",
                "env.A must not contain NUL");
        assertInvalid("{\"id\":\"a\",\"steps\":[null]}", "steps[0]", "steps[0] must be a step");
        assertInvalid(
                "{\"id\":\"a\",\"steps\":[{\"command\":\"ls\"},{\"command\":\" \"}]}",
                "steps[1].command",
                "steps[1].command is an empty command");
        assertInvalid(
                "{\"id\":\"a\",\"limits\":{\"pids\":65}}",
                "limits.pids",
                "limits.pids is too many");
    }

    @Test
    void ofSeveralViolationsTheFirstMemberInDeclarationOrderIsNamed() {
        for (int i = 0; i < 20; i++) {
            assertInvalid(
                    "{\"limits\":{\"pids\":65},\"env\":{\"a\":\"x\"},\"id\":\""
                            + "x".repeat(20)
                            + "\"}",
                    "id",
                    "id is too long");
        }
    }

    private static Body read(String json) {
        return JsonBody.read(Json.createReader(new StringReader(json)).readValue(), Body.class);
    }

    private static void assertInvalid(String json, String field, String detail) {
        assertThatThrownBy(() -> read(json))
                .as(json)
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(p.extensions()).isEqualTo(Map.of("field", field));
                            assertThat(p.detail()).isEqualTo(detail);
                        });
    }
}
