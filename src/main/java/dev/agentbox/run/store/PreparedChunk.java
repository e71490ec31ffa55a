package dev.agentbox.run.store;

import dev.agentbox.run.harness.Chunks;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.util.List;

/**
 * A chunk checked and serialized before an append takes the claim lock, so the lock is held only
 * for the fence check and the inserts, never for hashing.
 */
record PreparedChunk(String type, String json, String fingerprint, boolean service) {

    /**
     * @throws IllegalArgumentException when the chunk has no string {@code type} of 1..{@value
     *     RunEvent#MAX_TYPE} characters (the whole batch is then refused)
     */
    static PreparedChunk of(JsonObject chunk) {
        if (!(chunk.get("type") instanceof JsonString type)
                || type.getString().isEmpty()
                || type.getString().length() > RunEvent.MAX_TYPE) {
            throw new IllegalArgumentException(
                    "a chunk needs a string type of 1.." + RunEvent.MAX_TYPE + " characters");
        }
        return new PreparedChunk(
                type.getString(),
                chunk.toString(),
                Chunks.fingerprint(chunk),
                Chunks.isServiceChunk(chunk));
    }

    static List<PreparedChunk> all(List<JsonObject> chunks) {
        return chunks.stream().map(PreparedChunk::of).toList();
    }

    LoggedChunk at(long seq) {
        return new LoggedChunk(seq, type, json);
    }

    StoredChunk stored() {
        return new StoredChunk(type, fingerprint, service);
    }
}
