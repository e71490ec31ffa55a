package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import dev.agentbox.tool.GateEvents;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunBridgeEventsTest {

    private final RunBridgeEvents events =
            new RunBridgeEvents(new ChunkFactory("run-1", "t-1", () -> 7L));

    @Test
    void aBridgedCallAndTheGatesEventsDrainInTheOrderTheyCameAsServiceChunks() {
        events.started("s1/1", "weather", "{\"city\":\"Paris\"}");
        events.custom(
                GateEvents.APPROVAL_DECIDED,
                Json.createObjectBuilder().add("tool", "weather").build());
        events.finished("s1/1", "sunny", false);

        List<JsonObject> out = events.drain();
        assertThat(out.stream().map(c -> c.getString("type")))
                .containsExactly(
                        "TOOL_CALL_START",
                        "TOOL_CALL_ARGS",
                        "TOOL_CALL_END",
                        "CUSTOM",
                        "TOOL_CALL_RESULT");
        assertThat(out.get(0).getString("toolCallId"))
                .startsWith(Chunks.BRIDGE_TOOL_CALL_PREFIX)
                .isEqualTo(out.get(4).getString("toolCallId"));
        assertThat(out.get(3).getString("name")).isEqualTo("approval.decided");
        assertThat(events.drain()).as("drained once").isEmpty();
    }

    @Test
    void chunksPastTheBoundAreDropped() {
        for (int i = 0; i < RunBridgeEvents.MAX_QUEUED + 5; i++) {
            events.custom(GateEvents.APPROVAL_DECIDED, JsonObject.EMPTY_JSON_OBJECT);
        }
        assertThat(events.drain()).hasSize(RunBridgeEvents.MAX_QUEUED);
    }
}
