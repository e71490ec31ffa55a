package dev.agentbox.run;

import dev.agentbox.run.store.RunFailure;
import java.util.Optional;

/**
 * The replay produced a different chunk than the stored log holds at {@link #index()}, or it ended
 * while stored chunks were left ("replay is shorter than the stored log"), or the stored log holds
 * more service chunks in a row than a replay passes over (in the last two {@link #replayed()} is
 * empty).
 */
final class ReplayDivergedException extends AlignmentException {

    public static final String CODE = RunFailure.REPLAY_DIVERGED.code();

    private final int index;
    private final String stored;
    private final Optional<String> replayed;

    private ReplayDivergedException(
            String message, int index, String stored, Optional<String> replayed) {
        super(message);
        this.index = index;
        this.stored = stored;
        this.replayed = replayed;
    }

    static ReplayDivergedException mismatch(int index, String stored, String replayed) {
        return new ReplayDivergedException(
                "replay diverged from the stored log at index "
                        + index
                        + ": stored "
                        + stored
                        + ", replayed "
                        + replayed,
                index,
                stored,
                Optional.of(replayed));
    }

    /**
     * The stored log holds more than {@code max} service chunks in a row where the replay reached
     * it: out-of-band chunks are passed over only that far.
     */
    static ReplayDivergedException tooManyOutOfBand(int index, String stored, int max) {
        return new ReplayDivergedException(
                "replay diverged from the stored log at index "
                        + index
                        + ": more than "
                        + max
                        + " service chunks in a row are out of band (stored "
                        + stored
                        + ")",
                index,
                stored,
                Optional.empty());
    }

    static ReplayDivergedException shorter(int index, String stored, int storedSize) {
        return new ReplayDivergedException(
                "replay is shorter than the stored log: it ended at index "
                        + index
                        + " of "
                        + storedSize
                        + " (stored "
                        + stored
                        + ")",
                index,
                stored,
                Optional.empty());
    }

    @Override
    public String code() {
        return CODE;
    }

    /** Index in the stored log (0-based) where the replay stopped matching. */
    public int index() {
        return index;
    }

    /** Fingerprint of the stored chunk at {@link #index()}. */
    public String stored() {
        return stored;
    }

    /** Fingerprint of the replayed chunk compared with it; empty when the replay had ended. */
    public Optional<String> replayed() {
        return replayed;
    }
}
