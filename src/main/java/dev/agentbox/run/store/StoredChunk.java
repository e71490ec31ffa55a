package dev.agentbox.run.store;

import dev.agentbox.run.harness.Chunks;
import jakarta.json.JsonObject;

/**
 * What alignment needs to know about one chunk of the stored log.
 *
 * @param type the chunk's {@code type}
 * @param fingerprint {@link Chunks#fingerprint} of the stored chunk (also how alignment knows a
 *     service-inserted chunk, see {@code run.ServiceChunks})
 */
public record StoredChunk(String type, String fingerprint) {

    public StoredChunk {
        if (type == null || fingerprint == null) {
            throw new IllegalArgumentException("type and fingerprint are required");
        }
    }

    /** The stored-log view of {@code chunk}. */
    public static StoredChunk of(JsonObject chunk) {
        return new StoredChunk(chunk.getString("type", ""), Chunks.fingerprint(chunk));
    }
}
