package dev.agentbox.run;

import dev.agentbox.run.harness.Chunks;
import jakarta.json.JsonObject;

/**
 * What alignment needs to know about one chunk of the stored log.
 *
 * @param type the chunk's {@code type} ({@code CUSTOM} chunks may be skipped as out-of-band)
 * @param fingerprint {@link Chunks#fingerprint} of the stored chunk
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

    boolean isCustom() {
        return "CUSTOM".equals(type);
    }
}
