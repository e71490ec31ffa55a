package dev.agentbox.run.store;

import java.util.Locale;

/**
 * Why a run ended other than {@code completed}: the {@code code} of its {@code RUN_ERROR} chunk and
 * of its record's {@code error} (docs/api.md, "Run failures"). Run failures are not HTTP errors, so
 * they are not {@code ProblemCode}s; the two sets share a few spellings ({@code setup-failed},
 * {@code internal-error}) on purpose.
 */
public enum RunFailure {
    AGENT_EXIT,
    AGENT_ERROR,
    AGENT_LOST,
    JOURNAL_STALLED,
    JOURNAL_TIMEOUT,
    SETUP_FAILED,
    ABORTED,
    MAX_DURATION,
    REPLAY_DIVERGED,
    REPLAY_THREAD_MISMATCH,
    BUDGET_EXCEEDED,
    TOOL_BRIDGE_FAILED,
    SECRET_MISSING,
    INTERNAL_ERROR;

    private final String code = name().toLowerCase(Locale.ROOT).replace('_', '-');

    /** The code as written on the wire, e.g. {@code agent-lost}. */
    public String code() {
        return code;
    }

    /** A run error with this code. */
    public RunError error(String message) {
        return RunError.of(message, code);
    }

    @Override
    public String toString() {
        return code;
    }
}
