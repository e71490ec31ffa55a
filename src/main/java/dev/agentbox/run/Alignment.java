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
 *   <li>On a mismatch, a stored chunk the service inserted itself is out of band: nothing in the
 *       journal stands for it, so it is skipped. Those are the chunks marked as the service's when
 *       they were appended ({@link StoredChunk#service}: {@code run.accepted}, {@code
 *       file.changed}, the gate's and egress chunks, and the tool bridge's {@code TOOL_CALL_*}
 *       chunks, {@link Chunks#isBridgeChunk}) — no translator emits their names ({@link
 *       Chunks#SERVICE_NAMES}), so none can stand for a journal line — and an unmarked {@code
 *       run.accepted} (stored before the mark existed), recognised by fingerprint. Only those:
 *       every other stored chunk, the translators' {@code CUSTOM} ones included ({@code agent.text}
 *       for a plain-text line, {@code agent.output}, …), came from a journal line, so a mismatch
 *       there is a rewritten line, and skipping it would append the rewritten line after the
 *       original.
 *   <li>The skip is bounded: at most {@value #MAX_OUT_OF_BAND_SKIP} out-of-band chunks in a row, of
 *       any of those kinds together; the count resets on every match. The bound keeps the skip a
 *       tolerance rather than a forward search through a log that no longer fits its journal. The
 *       driver keeps what it writes within it ({@code DriverWriter#outOfBandRoom}: a storm of file
 *       changes waits for the agent's next line). A 65th marked chunk in a row is a {@link
 *       ReplayDivergedException} saying so; any other mismatch, or a 65th unmarked one, is one with
 *       the stored index and both fingerprints.
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

    /** Stored out-of-band chunks, of every kind together, a replay may pass over in a row. */
    public static final int MAX_OUT_OF_BAND_SKIP = 64;

    private final List<StoredChunk> stored;
    private final String recordThreadId;
    private final Set<String> serviceInserted;

    /** Index of the last stored chunk not marked as the service's; -1 when there is none. */
    private final int lastJournalChunk;

    private int position;
    private int outOfBandInRow;
    private boolean boundReached;
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
                outOfBandInRow = 0;
                return Optional.empty();
            }
            if (!skip(expected)) {
                throw fail(
                        boundReached
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
                    boundReached
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
     * inserted it and the bound allows; false (nothing changed) for any other chunk or past the
     * bound.
     */
    private boolean skip(StoredChunk expected) {
        boolean outOfBand = expected.service() || serviceInserted.contains(expected.fingerprint());
        if (!outOfBand) {
            return false;
        }
        if (outOfBandInRow >= MAX_OUT_OF_BAND_SKIP) {
            // A marked chunk is the service's for sure: say that the bound, not a rewritten
            // line, stopped the replay.
            boundReached = expected.service();
            return false;
        }
        outOfBandInRow++;
        totalSkipped++;
        position++;
        return true;
    }

    /**
     * Marked service chunks at the end of the stored log, after its last journal chunk: where a
     * successor's own out-of-band chunks will continue the row.
     */
    public int trailingServiceChunks() {
        return stored.size() - 1 - lastJournalChunk;
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
