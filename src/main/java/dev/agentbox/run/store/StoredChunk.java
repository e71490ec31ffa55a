package dev.agentbox.run.store;

import dev.agentbox.run.harness.Chunks;
import jakarta.json.JsonObject;

/**
 * What alignment needs to know about one chunk of the stored log.
 *
 * @param type the chunk's {@code type}
 * @param fingerprint {@link Chunks#fingerprint} of the stored chunk (also how alignment knows a
 *     {@code run.accepted} stored before service chunks were marked, see {@code run.ServiceChunks})
 * @param service whether the service wrote the chunk on its own account ({@link
 *     Chunks#isServiceChunk}); marked when it was appended
 */
public record StoredChunk(String type, String fingerprint, boolean service) {

    /** A chunk not marked as the service's. */
    public StoredChunk(String type, String fingerprint) {
        this(type, fingerprint, false);
    }

    public StoredChunk {
        if (type == null || fingerprint == null) {
            throw new IllegalArgumentException("type and fingerprint are required");
        }
    }

    /** The stored-log view of {@code chunk}. */
    public static StoredChunk of(JsonObject chunk) {
        return new StoredChunk(
                chunk.getString("type", ""),
                Chunks.fingerprint(chunk),
                Chunks.isServiceChunk(chunk));
    }
}
