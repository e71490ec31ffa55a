package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunksTest {

    private final ChunkFactory at1 = new ChunkFactory("r", "t", () -> 1L);
    private final ChunkFactory at2 = new ChunkFactory("r", "t", () -> 2L);

    @Test
    void fingerprintIgnoresOnlyTheTimestamp() {
        assertThat(Chunks.fingerprint(at1.textMessageContent("m", "hi")))
                .isEqualTo(Chunks.fingerprint(at2.textMessageContent("m", "hi")))
                .matches("[0-9a-f]{64}");
        assertThat(Chunks.fingerprint(at1.textMessageContent("m", "hi")))
                .isNotEqualTo(Chunks.fingerprint(at1.textMessageContent("m", "ho")));
        assertThat(Chunks.fingerprint(at1.runStarted()))
                .isNotEqualTo(
                        Chunks.fingerprint(new ChunkFactory("r", "other", () -> 1L).runStarted()));
    }

    @Test
    void fingerprintSeesNestedValuesButNotMemberOrder() {
        JsonObject a =
                at1.custom(
                        "x",
                        Json.createObjectBuilder()
                                .add("a", 1)
                                .add("b", Json.createArrayBuilder().add(1))
                                .build());
        JsonObject b =
                at2.custom(
                        "x",
                        Json.createObjectBuilder()
                                .add("b", Json.createArrayBuilder().add(1))
                                .add("a", 1)
                                .build());
        JsonObject c =
                at1.custom(
                        "x",
                        Json.createObjectBuilder()
                                .add("a", 1)
                                .add("b", Json.createArrayBuilder().add(2))
                                .build());
        assertThat(Chunks.fingerprint(a))
                .isEqualTo(Chunks.fingerprint(b))
                .isNotEqualTo(Chunks.fingerprint(c));
    }

    @Test
    void factoryChunksCarryTheCommonFieldsAndAreValid() {
        List<JsonObject> all =
                List.of(
                        at1.runStarted(),
                        at1.textMessageStart("m", "assistant"),
                        at1.textMessageContent("m", "d"),
                        at1.textMessageEnd("m"),
                        at1.toolCallStart("c", "n"),
                        at1.toolCallArgs("c", "{}"),
                        at1.toolCallEnd("c"),
                        at1.toolCallResult("m2", "c", "out"),
                        at1.custom("n", "v"),
                        at1.runFinished(),
                        at1.runError("boom", "agent-exit"));
        assertThat(all)
                .extracting(c -> c.getString("type"))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START",
                        "TEXT_MESSAGE_CONTENT",
                        "TEXT_MESSAGE_END",
                        "TOOL_CALL_START",
                        "TOOL_CALL_ARGS",
                        "TOOL_CALL_END",
                        "TOOL_CALL_RESULT",
                        "CUSTOM",
                        "RUN_FINISHED",
                        "RUN_ERROR");
        for (JsonObject chunk : all) {
            assertThat(Chunks.problems(chunk)).as(chunk.toString()).isEmpty();
            assertThat(chunk.getJsonNumber("timestamp").longValue()).isEqualTo(1L);
        }
        assertThat(all).filteredOn(Chunks::isTerminal).hasSize(2);
    }

    @Test
    void problemsNameWhatIsMissing() {
        JsonObject bad =
                Json.createObjectBuilder()
                        .add("type", "TOOL_CALL_START")
                        .add("toolCallId", 5)
                        .add("threadId", "t")
                        .add("timestamp", "now")
                        .build();
        assertThat(Chunks.problems(bad))
                .containsExactlyInAnyOrder(
                        "runId: missing or not a string",
                        "timestamp: missing or not a number",
                        "toolCallId: not a string",
                        "toolCallName: missing");
        assertThat(Chunks.problems(Json.createObjectBuilder().add("type", "NOPE").build()))
                .contains("type: missing or unknown");
    }

    @Test
    void stampReplacesTheAgentsThreadRunAndTimestamp() {
        JsonObject stamped =
                at2.stamp(
                        Json.createObjectBuilder()
                                .add("type", "CUSTOM")
                                .add("name", "n")
                                .add("value", 1)
                                .add("threadId", "forged")
                                .add("runId", "forged")
                                .add("timestamp", 9)
                                .build());
        assertThat(stamped.getString("threadId")).isEqualTo("t");
        assertThat(stamped.getString("runId")).isEqualTo("r");
        assertThat(stamped.getJsonNumber("timestamp").longValue()).isEqualTo(2L);
    }

    @Test
    void runIdsCountFromZeroPerInstance() {
        RunIds ids = new RunIds("run-1");
        assertThat(List.of(ids.next(), ids.next(), ids.next()))
                .containsExactly("run-1-0", "run-1-1", "run-1-2");
        assertThat(new RunIds("run-1").next()).isEqualTo("run-1-0");
    }

    @Test
    void harnessNamesAreTheWireNames() {
        assertThat(Harness.of("command")).contains(Harness.COMMAND);
        assertThat(Harness.of("claude-code")).contains(Harness.CLAUDE_CODE);
        assertThat(Harness.of("codex")).contains(Harness.CODEX);
        assertThat(Harness.of("CODEX")).isEmpty();
        assertThat(Harness.CODEX.translator("r", "t", () -> 0L))
                .isInstanceOf(CodexTranslator.class);
    }

    @Test
    void theToolGatesChunksAreReservedServiceChunks() {
        for (String name : List.of("approval.decided", "interrupt.requested")) {
            assertThat(
                            Chunks.isServiceChunk(
                                    at1.custom(name, jakarta.json.JsonValue.EMPTY_JSON_OBJECT)))
                    .as(name)
                    .isTrue();
        }
    }
}
