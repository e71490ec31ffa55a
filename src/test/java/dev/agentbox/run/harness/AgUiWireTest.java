package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class AgUiWireTest {

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    @Test
    void theRunsEnvelopeStaysOnlyWhereAgUiPutsIt() {
        ChunkFactory chunks = new ChunkFactory("r-1", "t-1", () -> 7L);

        assertThat(AgUiWire.of(chunks.runStarted()))
                .isEqualTo(
                        json(
                                "{\"type\":\"RUN_STARTED\",\"threadId\":\"t-1\",\"runId\":\"r-1\",\"timestamp\":7}"));
        assertThat(AgUiWire.of(chunks.textMessageContent("r-1-0", "hi")))
                .isEqualTo(
                        json(
                                "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"r-1-0\",\"delta\":\"hi\",\"timestamp\":7}"));
        assertThat(AgUiWire.of(chunks.runError("boom", "agent-exit")))
                .isEqualTo(
                        json(
                                "{\"type\":\"RUN_ERROR\",\"message\":\"boom\",\"code\":\"agent-exit\",\"timestamp\":7}"));
        assertThat(AgUiWire.of(chunks.runFinished(Json.createValue("done"))))
                .isEqualTo(
                        json(
                                "{\"type\":\"RUN_FINISHED\",\"result\":\"done\",\"threadId\":\"t-1\",\"runId\":\"r-1\",\"timestamp\":7}"));
    }

    @Test
    void membersAnAgentAddedAreLeftOutButMetadataAndRawEventAreKept() {
        JsonObject stored =
                json(
                        "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\",\"toolCallName\":\"ls\","
                                + "\"parentMessageId\":\"m\",\"color\":\"red\",\"metadata\":{\"k\":1},"
                                + "\"rawEvent\":{\"x\":2},\"threadId\":\"t\",\"runId\":\"r\",\"timestamp\":1}");

        assertThat(AgUiWire.of(stored))
                .isEqualTo(
                        json(
                                "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\",\"toolCallName\":\"ls\","
                                        + "\"parentMessageId\":\"m\",\"metadata\":{\"k\":1},"
                                        + "\"rawEvent\":{\"x\":2},\"timestamp\":1}"));
    }

    @Test
    void theWireFormIsAFixedPoint() {
        ChunkFactory chunks = new ChunkFactory("r", "t", () -> 1L);
        JsonObject once = AgUiWire.of(chunks.toolCallResult("m", "c", "out"));
        assertThat(AgUiWire.of(once)).isEqualTo(once);
        assertThat(once.keySet())
                .containsExactlyInAnyOrder(
                        "type", "messageId", "toolCallId", "content", "role", "timestamp");
    }
}
