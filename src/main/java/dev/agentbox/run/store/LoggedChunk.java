package dev.agentbox.run.store;

import dev.agentbox.run.harness.ChunkType;
import jakarta.json.JsonObject;
import java.util.Objects;

/**
 * One chunk as stored in a run's log, ready to be served as an SSE event ({@code id: seq}, {@code
 * event: type}, {@code data: json}).
 *
 * @param seq the chunk's position in the run's log: 1, 2, 3, … without gaps
 * @param type the chunk's {@code type}
 * @param json the chunk's JSON text exactly as appended
 */
public record LoggedChunk(long seq, String type, String json) {

    public LoggedChunk {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(json, "json");
    }

    /** {@code RUN_FINISHED} or {@code RUN_ERROR}: nothing follows it in the run's log. */
    public boolean isTerminal() {
        return ChunkType.of(type).map(ChunkType::isTerminal).orElse(false);
    }

    /** The chunk parsed back into a JSON object. */
    public JsonObject chunk() {
        return RunRecord.parseObject(json);
    }
}
