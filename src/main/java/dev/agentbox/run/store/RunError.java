package dev.agentbox.run.store;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@code error} of a run record: {@code {"message", "code?"}}.
 *
 * <p>The message is cut to its first {@value #MAX_MESSAGE} characters (the stderr tail a driver
 * puts into it is already bounded to 1000), so that a terminal update can never fail on the column
 * width; a code longer than {@value #MAX_CODE} characters is rejected, since codes are the
 * service's own short identifiers.
 */
public record RunError(String message, Optional<String> code) {

    public static final int MAX_MESSAGE = 8000;
    public static final int MAX_CODE = 128;

    public RunError {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(code, "code");
        if (message.length() > MAX_MESSAGE) {
            message = message.substring(0, MAX_MESSAGE);
        }
        if (code.isPresent() && code.get().length() > MAX_CODE) {
            throw new IllegalArgumentException(
                    "error code longer than " + MAX_CODE + " characters");
        }
    }

    public static RunError of(String message) {
        return new RunError(message, Optional.empty());
    }

    public static RunError of(String message, String code) {
        return new RunError(message, Optional.of(code));
    }
}
