package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.problem.ProblemCode;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProblemsTest {

    @Test
    void problemDocumentHasTypeTitleStatusDetailAndCode() {
        JsonObject p =
                parse(
                        Problems.json(
                                ProblemCode.UNSUPPORTED_CAPABILITY,
                                "nope",
                                Map.of("provider", "local", "index", 3)));
        assertThat(p.getString("type"))
                .isEqualTo("https://agentbox.dev/problems/unsupported-capability");
        assertThat(p.getString("title")).isEqualTo("Unsupported capability");
        assertThat(p.getInt("status")).isEqualTo(422);
        assertThat(p.getString("detail")).isEqualTo("nope");
        assertThat(p.getString("code")).isEqualTo("unsupported-capability");
        assertThat(p.getString("provider")).isEqualTo("local");
        assertThat(p.getInt("index")).isEqualTo(3);
    }

    @Test
    void containerStatusesMapToApiCodes() {
        assertThat(ProblemCode.forStatus(404).code()).isEqualTo("not-found");
        assertThat(ProblemCode.forStatus(405).code()).isEqualTo("method-not-allowed");
        assertThat(ProblemCode.forStatus(413).code()).isEqualTo("payload-too-large");
        assertThat(ProblemCode.forStatus(500).code()).isEqualTo("internal-error");
    }

    private static JsonObject parse(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }
}
