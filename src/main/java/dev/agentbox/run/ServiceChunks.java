package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The {@code CUSTOM} chunks the service writes into a run's log on its own account rather than
 * translating them from the journal. A takeover's replay cannot reproduce them, so they are the
 * only stored chunks {@link Alignment} may skip.
 *
 * <p>Not the translators' {@code CUSTOM} chunks ({@code agent.text}, {@code agent.output}, {@code
 * claude-code.*}, {@code codex.*}): those come from journal lines, a replay reproduces them, and a
 * stored one that differs is a rewritten line.
 *
 * <p>Each service chunk is a function of the run alone (no server, no attempt; its timestamp is
 * outside the fingerprint), so alignment recognises a stored one by fingerprint and the store never
 * reads chunk JSON back for it. A service chunk carrying anything else would need a stored marker
 * instead.
 */
final class ServiceChunks {

    /** The first driver's mark that it took the run on (a successor does not repeat it). */
    static final String RUN_ACCEPTED = "run.accepted";

    private ServiceChunks() {}

    static JsonObject runAccepted(ChunkFactory chunks) {
        return chunks.custom(RUN_ACCEPTED, JsonValue.EMPTY_JSON_OBJECT);
    }

    /** Fingerprints of every chunk the service may insert into the log of run {@code runId}. */
    static Set<String> fingerprints(String runId, String threadId) {
        ChunkFactory chunks = new ChunkFactory(runId, threadId, () -> 0L);
        return Stream.of(runAccepted(chunks))
                .map(Chunks::fingerprint)
                .collect(Collectors.toUnmodifiableSet());
    }
}
