package dev.agentbox.platform.body;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class JsonMembersTest {

    public record Body(
            @NotNull(message = "is required")
                    @NonBlank(message = "must not be empty")
                    @Size(max = 3, message = "is too long")
                    @Printable(message = "must be printable", withIndex = false)
                    String name,
            @Min(value = 1, message = "must be positive") Long count,
            JsonObject nested) {}

    @Test
    void membersAreReadInTheRecordsOrderAndMadeIntoIt() {
        JsonMembers<Body> m =
                JsonMembers.of(json("{\"nested\":{},\"count\":2,\"name\":\"ab\"}"), "", Body.class);
        assertThat((String) m.through("name")).isEqualTo("ab");
        assertThat(m.finish()).isEqualTo(new Body("ab", 2L, JsonValue.EMPTY_JSON_OBJECT));
    }

    @Test
    void aRuleBetweenMembersComesBeforeTheFaultsOfLaterOnes() {
        JsonMembers<Body> m =
                JsonMembers.of(json("{\"name\":\"ab\",\"count\":\"x\"}"), "b", Body.class);
        assertThat((String) m.through("name")).isEqualTo("ab");
        assertThatThrownBy(m::finish).hasMessage("b.count must be an integer");
    }

    @Test
    void theFirstFaultFromTopToBottomIsNamed() {
        // A shape fault of a later member does not come before a constraint of an earlier one.
        assertRefused("{\"name\":\"\",\"count\":\"x\"}", "name must not be empty");
        assertRefused("{\"count\":0}", "name is required");
        assertRefused("{\"name\":\"ab\",\"count\":0}", "count must be positive");
        assertRefused("{\"name\":\"ab\",\"nested\":[]}", "nested must be a JSON object");
    }

    @Test
    void ofSeveralViolationsOnOneMemberTheFirstDeclaredIsNamed() {
        // Blank and unprintable, long and unprintable: the order of the annotations decides.
        assertRefused("{\"name\":\"\\n\"}", "name must not be empty");
        assertRefused("{\"name\":\"\\u0001abcd\"}", "name is too long");
        assertRefused("{\"name\":\"\\u0001\"}", "name must be printable");
    }

    @Test
    void unknownMembersAreRefusedFirstUnlessLeftForLater() {
        assertRefused("{\"name\":\"\",\"nmae\":1}", "nmae is not a known field");
        JsonMembers<Body> m =
                JsonMembers.lenient(json("{\"name\":\"ab\",\"x\":1}"), "o", Body.class);
        assertThat((String) m.through("name")).isEqualTo("ab");
        assertThatThrownBy(m::known).hasMessage("o.x is not a known field");
        assertThatThrownBy(() -> JsonMembers.of(json("[]"), "", Body.class))
                .hasMessage("body must be a JSON object");
        assertThatThrownBy(() -> JsonMembers.of(json("5"), "o", Body.class))
                .hasMessage("o must be a JSON object");
    }

    private static void assertRefused(String body, String detail) {
        assertThatThrownBy(() -> JsonMembers.of(json(body), "", Body.class).finish())
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.detail()).isEqualTo(detail);
                            assertThat(e.extensions().get("field"))
                                    .isEqualTo(detail.substring(0, detail.indexOf(' ')));
                        });
    }

    private static JsonValue json(String s) {
        return Json.createReader(new StringReader(s)).readValue();
    }
}
