package dev.agentbox.run;

/**
 * A takeover replay that cannot be aligned with the stored log. The run must fail; nothing of the
 * replay may be forwarded. Not a condition to recover from: it means translation stopped being
 * deterministic, the journal was rewritten (usually a reused runId), or the replay was driven with
 * the wrong threadId.
 */
abstract sealed class AlignmentException extends RuntimeException
        permits ReplayDivergedException, ReplayThreadIdMismatchException {

    AlignmentException(String message) {
        super(message);
    }

    /** The error code for the run's error and the problem response. */
    public abstract String code();
}
