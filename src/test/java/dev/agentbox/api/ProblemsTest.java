package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProblemsTest {

    @Test
    void problemDocumentHasTypeTitleStatusDetailAndCode() {
        JsonObject p = parse(Problems.json(422, "unsupported-capability", "nope",
                Map.of("provider", "local", "index", 3)));
        assertThat(p.getString("type")).isEqualTo("https://agentbox.dev/problems/unsupported-capability");
        assertThat(p.getString("title")).isEqualTo("Unsupported capability");
        assertThat(p.getInt("status")).isEqualTo(422);
        assertThat(p.getString("detail")).isEqualTo("nope");
        assertThat(p.getString("code")).isEqualTo("unsupported-capability");
        assertThat(p.getString("provider")).isEqualTo("local");
        assertThat(p.getInt("index")).isEqualTo(3);
    }

    @Test
    void containerStatusesMapToApiCodes() {
        assertThat(Problems.codeFor(404)).isEqualTo("not-found");
        assertThat(Problems.codeFor(405)).isEqualTo("method-not-allowed");
        assertThat(Problems.codeFor(413)).isEqualTo("payload-too-large");
        assertThat(Problems.codeFor(500)).isEqualTo("internal-error");
    }

    private static JsonObject parse(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }
}
