package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.store.StoredChunk;
import dev.agentbox.tool.GateEvents;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A successor's tool bridge does not store a bridged chunk twice (AP-11). */
class BridgedRepeatsTest {

    private static List<JsonObject> call(String callKey, String decidedBy) {
        RunBridgeEvents e = new RunBridgeEvents(new ChunkFactory("run-1", "t-1", () -> 7L));
        e.started(callKey, "weather", "{\"city\":\"Paris\"}");
        e.custom(
                GateEvents.APPROVAL_DECIDED,
                Json.createObjectBuilder()
                        .add("tool", "weather")
                        .add("callId", callKey)
                        .add("approved", true)
                        .add("by", decidedBy)
                        .build());
        return e.drain();
    }

    private static List<StoredChunk> stored(List<JsonObject> chunks) {
        List<StoredChunk> out = new ArrayList<>();
        out.add(new StoredChunk("TEXT_MESSAGE_START", "journal-fp"));
        for (JsonObject c : chunks) {
            out.add(new StoredChunk(c.getString("type"), StoredChunk.of(c).fingerprint(), true));
        }
        return out;
    }

    @Test
    void aCallDispatchedAgainAfterATakeoverIsNotStoredTwice() {
        List<JsonObject> first = call("s1:1", "answer");
        BridgedRepeats repeats = new BridgedRepeats(stored(first));

        assertThat(repeats.notStored(call("s1:1", "answer"))).isEmpty();
    }

    @Test
    void anotherCallOfTheSameToolDecidedAlikeIsStoredAndEachStoredChunkCancelsOneRepeat() {
        BridgedRepeats repeats = new BridgedRepeats(stored(call("s1:1", "rule")));

        List<JsonObject> other = call("s1:2", "rule");
        assertThat(repeats.notStored(other)).isEqualTo(other);
        assertThat(repeats.notStored(call("s1:1", "rule"))).isEmpty();
        assertThat(repeats.notStored(call("s1:1", "rule")))
                .as("used up: a third dispatch would be stored")
                .hasSize(4);
    }

    @Test
    void onlyChunksMarkedAsTheServicesCancelRepeats() {
        List<JsonObject> first = call("s1:1", "answer");
        List<StoredChunk> unmarked =
                first.stream()
                        .map(
                                c ->
                                        new StoredChunk(
                                                c.getString("type"),
                                                StoredChunk.of(c).fingerprint()))
                        .toList();

        assertThat(new BridgedRepeats(unmarked).notStored(first)).isEqualTo(first);
    }
}
