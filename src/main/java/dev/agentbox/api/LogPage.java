package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.util.Map;

/**
 * The paging arguments of {@code GET /runs/{runId}/log}: {@code after} is an offset the log (or the
 * event stream) gave, exclusive like {@code Last-Event-ID} (absent = from the start); {@code limit}
 * is 1..{@value #MAX_LIMIT} chunks (absent = {@value #DEFAULT_LIMIT}). Anything else is {@code 400
 * invalid-request} naming the parameter — never an unbounded page.
 */
record LogPage(long after, int limit) {

    static final int DEFAULT_LIMIT = 1000;
    static final int MAX_LIMIT = 1000;

    static LogPage parse(String after, String limit) {
        return new LogPage(after(after), limit(limit));
    }

    private static long after(String raw) {
        if (raw == null || raw.isBlank()) {
            return 0;
        }
        try {
            long v = Long.parseLong(raw.trim());
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new ProblemException(
                ProblemCode.INVALID_REQUEST,
                "after must be an offset the log returned",
                Map.of("field", "after"),
                null);
    }

    private static int limit(String raw) {
        if (raw == null || raw.isBlank()) {
            return DEFAULT_LIMIT;
        }
        try {
            long v = Long.parseLong(raw.trim());
            if (v >= 1 && v <= MAX_LIMIT) {
                return (int) v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new ProblemException(
                ProblemCode.INVALID_REQUEST,
                "limit must be a number from 1 to " + MAX_LIMIT,
                Map.of("field", "limit", "maximum", MAX_LIMIT),
                null);
    }
}
