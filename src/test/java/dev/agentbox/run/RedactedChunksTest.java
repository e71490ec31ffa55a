package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.Redactor;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedactedChunksTest {

    private static final String SECRET = "tok\"en\\with-quote";

    @Test
    void everyStringValueIsMaskedAlsoNestedAndAlsoWhenTheValueNeedsJsonEscaping() {
        JsonObject chunk =
                Json.createObjectBuilder()
                        .add("type", "TOOL_CALL_RESULT")
                        .add("content", "the key is " + SECRET)
                        .add(
                                "nested",
                                Json.createObjectBuilder()
                                        .add("args", Json.createArrayBuilder().add(SECRET).add(7)))
                        .add("count", 3)
                        .build();

        JsonObject out = RedactedChunks.of(Redactor.of(List.of(SECRET)), List.of(chunk)).get(0);

        assertThat(out.toString()).doesNotContain("tok\\\"en");
        assertThat(out.getString("content")).isEqualTo("the key is ***");
        assertThat(out.getJsonObject("nested").getJsonArray("args").getString(0)).isEqualTo("***");
        assertThat(out.getInt("count")).isEqualTo(3);
        assertThat(List.copyOf(out.keySet()))
                .as("field order kept (replay fingerprints)")
                .containsExactly("type", "content", "nested", "count");
    }

    @Test
    void aChunkWithoutSecretsIsTheSameInstanceAndTheSameRedactionTwiceGivesEqualChunks() {
        JsonObject plain =
                Json.createObjectBuilder()
                        .add("type", "TEXT_MESSAGE_CONTENT")
                        .add("delta", "hello")
                        .build();
        JsonObject leaky =
                Json.createObjectBuilder()
                        .add("type", "TEXT_MESSAGE_CONTENT")
                        .add("delta", SECRET)
                        .build();
        Redactor r = Redactor.of(List.of(SECRET));

        List<JsonObject> first = RedactedChunks.of(r, List.of(plain, leaky));
        List<JsonObject> again =
                RedactedChunks.of(Redactor.of(List.of(SECRET)), List.of(plain, leaky));

        assertThat(first.get(0)).isSameAs(plain);
        assertThat(first).isEqualTo(again);
    }
}
