package dev.agentbox.run;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.store.StoredChunk;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Aligns a takeover's replay (the journal re-read from byte 0 and re-translated) with the run's
 * stored log, so that only what the log does not hold yet is appended.
 *
 * <p>Fed incrementally, one replayed chunk at a time, as the successor tails the journal:
 *
 * <ul>
 *   <li>Replayed chunk i is compared with the stored chunk at the current stored position by
 *       {@linkplain Chunks#fingerprint fingerprint} (canonical JSON without {@code timestamp}). A
 *       match is suppressed ({@link #offer} returns empty) and the position advances.
 *   <li>On a mismatch, a stored chunk the service inserted itself ({@link ServiceChunks}) is
 *       skipped. A chunk marked as the service's when it was appended ({@link StoredChunk#service},
 *       {@code run.accepted} and {@code file.changed}) is skipped however many there are: no
 *       translator emits those names ({@link Chunks#SERVICE_NAMES}), so it cannot stand for a
 *       journal line, and a storm of file changes may put many between two journal lines. The tool
 *       bridge's chunks (marked {@code TOOL_CALL_*} chunks, {@link Chunks#isBridgeChunk}) are out
 *       of band the same way, but at most {@value #MAX_OUT_OF_BAND_SKIP} of them in a row (the
 *       count resets on every match): more between two journal chunks is a {@link
 *       ReplayDivergedException} saying so, not a skip without end. An unmarked {@code
 *       run.accepted} (stored before the mark existed) is recognised by fingerprint and skipped up
 *       to {@value #MAX_OUT_OF_BAND_SKIP} consecutive ones; that count resets on every match. Only
 *       those: every other stored chunk, the translators' {@code CUSTOM} ones included ({@code
 *       agent.text} for a plain-text line, {@code agent.output}, …), came from a journal line, so a
 *       mismatch there is a rewritten line, and skipping it would append the rewritten line after
 *       the original. The bound keeps the fingerprint rule a tolerance rather than a forward search
 *       for any fingerprint that happens to match. Any other mismatch, or a 65th consecutive
 *       fingerprint skip, is a {@link ReplayDivergedException} with the stored index and both
 *       fingerprints.
 *   <li>Once every stored chunk is matched or skipped, each further replayed chunk is the
 *       remainder: {@link #offer} returns it, to be appended (never upserted).
 *   <li>{@link #finish()} is called when the replay has ended (after the translator's exit chunks);
 *       stored service chunks left over are skipped as above, anything else left over means "replay
 *       is shorter than the stored log".
 *   <li>A replayed chunk whose {@code threadId} differs from the record's is a {@link
 *       ReplayThreadIdMismatchException} — a different error, because it is a wiring bug, not a
 *       determinism bug.
 * </ul>
 *
 * <p>Invariants: a divergence can only be raised before the first remainder chunk is returned
 * (afterwards there is nothing left to compare), so a failed alignment has forwarded nothing; after
 * any {@link AlignmentException} the instance is latched and refuses further use; the stored chunks
 * are never reordered or searched beyond the skip bound. Not thread-safe: the one driver of the run
 * feeds it.
 */
public final class Alignment {

    /**
     * Consecutive stored service-inserted chunks a replay may pass over by fingerprint, and
     * consecutive tool bridge chunks.
     */
    public static final int MAX_OUT_OF_BAND_SKIP = 64;

    /**
     * The types of the tool bridge's chunks: a marked chunk of one of them is a bridge chunk
     * ({@link Chunks#isBridgeChunk}), the stored log keeping only type, fingerprint and mark.
     */
    private static final Set<String> BRIDGE_TYPES =
            Set.of("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT");

    private final List<StoredChunk> stored;
    private final String recordThreadId;
    private final Set<String> serviceInserted;

    /** Index of the last stored chunk not marked as the service's; -1 when there is none. */
    private final int lastJournalChunk;

    private int position;
    private int consecutiveSkips;
    private int bridgeChunksInRow;
    private boolean bridgeBoundReached;
    private int totalSkipped;
    private boolean failed;
    private boolean finished;

    /**
     * @param stored the stored log, in offset order (a bounded snapshot read once at takeover)
     * @param runId the run's id, which the service-inserted chunks carry
     * @param recordThreadId the run record's threadId; every replayed chunk must carry it
     */
    public Alignment(List<StoredChunk> stored, String runId, String recordThreadId) {
        this.stored = List.copyOf(stored);
        this.recordThreadId = recordThreadId;
        this.serviceInserted = ServiceChunks.fingerprints(runId, recordThreadId);
        int last = this.stored.size() - 1;
        while (last >= 0 && this.stored.get(last).service()) {
            last--;
        }
        this.lastJournalChunk = last;
    }

    /** The stored log this alignment replays against, in offset order. */
    List<StoredChunk> stored() {
        return stored;
    }

    /** An alignment against stored chunks given as JSON. */
    public static Alignment ofStoredChunks(
            List<JsonObject> storedChunks, String runId, String recordThreadId) {
        return new Alignment(
                storedChunks.stream().map(StoredChunk::of).toList(), runId, recordThreadId);
    }

    /**
     * Offers the next replayed chunk.
     *
     * @return the chunk when it is past the stored log (to append), empty when the stored log
     *     already holds it
     * @throws ReplayDivergedException when it does not match the stored log
     * @throws ReplayThreadIdMismatchException when its threadId is not the record's
     * @throws IllegalStateException after a failure or after {@link #finish()}
     */
    public Optional<JsonObject> offer(JsonObject replayed) {
        requireUsable();
        Optional<String> threadId = Chunks.string(replayed, "threadId");
        if (!threadId.equals(Optional.of(recordThreadId))) {
            throw fail(new ReplayThreadIdMismatchException(recordThreadId, threadId));
        }
        if (position >= stored.size()) {
            return Optional.of(replayed);
        }
        String fingerprint = Chunks.fingerprint(replayed);
        while (position < stored.size()) {
            StoredChunk expected = stored.get(position);
            if (expected.fingerprint().equals(fingerprint)) {
                position++;
                consecutiveSkips = 0;
                bridgeChunksInRow = 0;
                return Optional.empty();
            }
            if (!skip(expected)) {
                throw fail(
                        bridgeBoundReached
                                ? ReplayDivergedException.tooManyOutOfBand(
                                        position, expected.fingerprint(), MAX_OUT_OF_BAND_SKIP)
                                : ReplayDivergedException.mismatch(
                                        position, expected.fingerprint(), fingerprint));
            }
        }
        // Only skipped service-inserted chunks were left: this chunk is the first of the remainder.
        return Optional.of(replayed);
    }

    /** Offers several replayed chunks in order; returns those to append. */
    public List<JsonObject> offerAll(List<JsonObject> replayed) {
        List<JsonObject> remainder = new ArrayList<>();
        for (JsonObject chunk : replayed) {
            offer(chunk).ifPresent(remainder::add);
        }
        return remainder;
    }

    /**
     * The replay has ended.
     *
     * @throws ReplayDivergedException "replay is shorter than the stored log" when stored chunks
     *     were neither matched nor skipped
     */
    public void finish() {
        requireUsable();
        while (position < stored.size() && skip(stored.get(position))) {
            // trailing service chunks: nothing a replay could match them with
        }
        if (position < stored.size()) {
            throw fail(
                    bridgeBoundReached
                            ? ReplayDivergedException.tooManyOutOfBand(
                                    position,
                                    stored.get(position).fingerprint(),
                                    MAX_OUT_OF_BAND_SKIP)
                            : ReplayDivergedException.shorter(
                                    position, stored.get(position).fingerprint(), stored.size()));
        }
        finished = true;
    }

    /**
     * Passes over {@code expected}, the stored chunk at the current position, if the service
     * inserted it; false (nothing changed) for any other chunk or past the fingerprint rule's or
     * the bridge chunks' bound.
     */
    private boolean skip(StoredChunk expected) {
        if (expected.service()) {
            if (BRIDGE_TYPES.contains(expected.type())) {
                if (bridgeChunksInRow >= MAX_OUT_OF_BAND_SKIP) {
                    bridgeBoundReached = true;
                    return false;
                }
                bridgeChunksInRow++;
            }
            totalSkipped++;
            position++;
            return true;
        }
        if (!serviceInserted.contains(expected.fingerprint())
                || consecutiveSkips >= MAX_OUT_OF_BAND_SKIP) {
            return false;
        }
        consecutiveSkips++;
        totalSkipped++;
        position++;
        return true;
    }

    /** Whether every stored chunk has been matched or skipped: further chunks are remainder. */
    public boolean caughtUp() {
        return position >= stored.size();
    }

    /**
     * Whether every stored chunk a replay must match has been matched: what is left, if anything,
     * are marked service chunks. From then on nothing the replay offers can diverge before it is
     * appended.
     */
    public boolean journalCaughtUp() {
        return position > lastJournalChunk;
    }

    /** Stored service-inserted chunks skipped so far. */
    public int skipped() {
        return totalSkipped;
    }

    private void requireUsable() {
        if (failed) {
            throw new IllegalStateException("alignment already failed");
        }
        if (finished) {
            throw new IllegalStateException("alignment already finished");
        }
    }

    private AlignmentException fail(AlignmentException e) {
        failed = true;
        return e;
    }
}
