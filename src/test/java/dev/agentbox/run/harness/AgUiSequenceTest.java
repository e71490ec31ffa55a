package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CH-02: the sequence and schema rules of AG-UI 1.0's verifier, as the guard applies them. */
class AgUiSequenceTest {

    private final ChunkFactory f = new ChunkFactory("r", "t", () -> 7L);

    private static AgUiSequence accepted(List<JsonObject> chunks) {
        AgUiSequence s = new AgUiSequence();
        chunks.forEach(s::accept);
        return s;
    }

    @Test
    void theFirstChunkMustBeRunStarted_SoTheEarlierOpeningOrderIsRefused() {
        AgUiSequence s = new AgUiSequence();
        assertThat(s.refusal(f.custom("run.accepted", Json.createObjectBuilder().build())))
                .hasValueSatisfying(r -> assertThat(r).contains("not RUN_STARTED"));
        s.accept(f.runStarted());
        assertThat(s.refusal(f.custom("run.accepted", Json.createObjectBuilder().build())))
                .isEmpty();
        assertThat(s.refusal(f.runStarted())).isPresent();
    }

    @Test
    void runFinishedIsRefusedWhileAnythingIsOpenButRunErrorIsNot() {
        for (JsonObject open :
                List.of(
                        f.textMessageStart("m", "assistant"),
                        f.toolCallStart("c", "n"),
                        f.reasoningStart("s"),
                        f.reasoningMessageStart("q"),
                        Json.createObjectBuilder(f.custom("x", "y"))
                                .add("type", "STEP_STARTED")
                                .add("stepName", "b")
                                .build())) {
            AgUiSequence s = accepted(List.of(f.runStarted(), open));
            assertThat(s.refusal(f.runFinished())).as("%s", open).isPresent();
            assertThat(s.refusal(f.runError("m", "c"))).as("%s", open).isEmpty();
            s.closing(f).forEach(s::accept);
            assertThat(s.refusal(f.runFinished())).as("%s", open).isEmpty();
        }
    }

    @Test
    void nothingFollowsTheTerminalChunk() {
        AgUiSequence s = accepted(List.of(f.runStarted(), f.runError("m", "c")));
        assertThat(s.terminated()).isTrue();
        assertThat(s.refusal(f.custom("x", "y"))).isPresent();
        assertThat(s.refusal(f.runStarted())).isPresent();
    }

    @Test
    void startsContinuationsAndEndsNeedTheirIdOpen() {
        AgUiSequence s = accepted(List.of(f.runStarted(), f.textMessageStart("m", "user")));
        assertThat(s.refusal(f.textMessageStart("m", "user"))).isPresent();
        assertThat(s.refusal(f.textMessageContent("k", "d"))).isPresent();
        assertThat(s.refusal(f.reasoningMessageContent("m", "d")))
                .as("a reasoning message is not a text message")
                .isPresent();
        s.accept(f.textMessageEnd("m"));
        assertThat(s.refusal(f.textMessageEnd("m"))).isPresent();
        assertThat(s.refusal(f.textMessageStart("m", "user"))).as("reuse after END").isEmpty();
        assertThat(s.refusal(f.toolCallArgs("c", "{}"))).isPresent();
        assertThat(s.refusal(f.reasoningEnd("s"))).isPresent();
    }

    @Test
    void schemaProblemsAreRefusals() {
        AgUiSequence s = accepted(List.of(f.runStarted()));
        JsonObject floatTime =
                Json.createObjectBuilder(f.custom("x", "y")).add("timestamp", 1.5).build();
        JsonObject badUsage =
                Json.createObjectBuilder(f.runFinished())
                        .add("usage", Json.createObjectBuilder().add("inputTokens", 1))
                        .build();
        JsonObject negativeTokens =
                Json.createObjectBuilder(f.runFinished())
                        .add(
                                "usage",
                                Json.createArrayBuilder()
                                        .add(Json.createObjectBuilder().add("inputTokens", -1)))
                        .build();
        JsonObject nullResult = Json.createObjectBuilder(f.runFinished()).addNull("result").build();
        JsonObject noCode = Json.createObjectBuilder(f.runError("m", "c")).remove("code").build();
        for (JsonObject bad : List.of(floatTime, badUsage, negativeTokens, nullResult, noCode)) {
            assertThat(s.refusal(bad)).as("%s", bad).isPresent();
        }
        JsonObject goodUsage =
                Json.createObjectBuilder(f.runFinished(Json.createValue("done")))
                        .add(
                                "usage",
                                Json.createArrayBuilder()
                                        .add(
                                                Json.createObjectBuilder()
                                                        .add("model", "m")
                                                        .add("inputTokens", 3)))
                        .build();
        assertThat(s.refusal(goodUsage)).isEmpty();
    }

    @Test
    void acceptingARefusedChunkIsABug() {
        AgUiSequence s = new AgUiSequence();
        assertThatThrownBy(() -> s.accept(f.textMessageEnd("m")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
