package dev.agentbox.run;

import dev.agentbox.run.store.RunFailure;
import java.util.Optional;

/**
 * A replayed chunk carries a threadId other than the run record's: the replay was driven with the
 * wrong threadId (a configuration bug, not a determinism bug). The service always translates with
 * the record's threadId, so this is a guard, not an expected outcome.
 */
final class ReplayThreadIdMismatchException extends AlignmentException {

    public static final String CODE = RunFailure.REPLAY_THREAD_MISMATCH.code();

    private final String expected;
    private final Optional<String> actual;

    ReplayThreadIdMismatchException(String expected, Optional<String> actual) {
        super(
                "replay threadId "
                        + actual.map(a -> "'" + a + "'").orElse("(absent)")
                        + " differs from the run record's threadId '"
                        + expected
                        + "'");
        this.expected = expected;
        this.actual = actual;
    }

    @Override
    public String code() {
        return CODE;
    }

    /** The run record's threadId. */
    public String expected() {
        return expected;
    }

    /** The replayed chunk's threadId; empty when it had none. */
    public Optional<String> actual() {
        return actual;
    }
}
