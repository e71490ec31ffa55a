package dev.agentbox.run.store;

import java.util.Locale;

/**
 * The status of a run, as docs/api.md spells it on the wire. {@code running} and {@code
 * interrupted} are live; {@code completed}, {@code failed} and {@code aborted} are terminal and
 * final: a terminal run never changes status again and is never claimed.
 */
public enum RunStatus {
    RUNNING,
    INTERRUPTED,
    COMPLETED,
    FAILED,
    ABORTED;

    /** The wire name ({@code "running"}, …). */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isTerminal() {
        return this == COMPLETED || this == FAILED || this == ABORTED;
    }

    /**
     * The status named {@code wireName} exactly (lowercase).
     *
     * @throws IllegalArgumentException for any other string, so an unknown status is rejected
     *     rather than mapped to something plausible
     */
    public static RunStatus parse(String wireName) {
        for (RunStatus s : values()) {
            if (s.wireName().equals(wireName)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown run status: " + wireName);
    }
}
