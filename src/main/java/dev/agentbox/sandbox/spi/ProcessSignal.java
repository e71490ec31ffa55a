package dev.agentbox.sandbox.spi;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The signals a caller may send to a background process's group. A fixed set, named as {@code kill
 * -NAME} spells them: every provider runs {@code kill} with one of these words and nothing a caller
 * typed, and the set is the same on every shell {@code kill} the providers use.
 */
public enum ProcessSignal {
    TERM,
    INT,
    KILL,
    HUP,
    QUIT,
    USR1,
    USR2;

    /**
     * The signal named {@code name}: case-insensitive, with or without a {@code SIG} prefix ({@code
     * int}, {@code SIGINT}); empty for anything else (numbers included).
     */
    public static Optional<ProcessSignal> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.trim().toUpperCase(Locale.ROOT);
        if (n.startsWith("SIG")) {
            n = n.substring(3);
        }
        for (ProcessSignal s : values()) {
            if (s.name().equals(n)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** The accepted names, for error messages: {@code TERM, INT, ...}. */
    public static String names() {
        return Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "));
    }
}
