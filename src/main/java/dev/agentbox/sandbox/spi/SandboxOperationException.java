package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;

/**
 * A sandbox operation that failed for a reason the caller can act on (e.g. a file used as a
 * directory, a git command that exited non-zero): {@code 400 invalid-request} with the operation
 * and the tail of the tool's message.
 */
public class SandboxOperationException extends ProblemException {

    public SandboxOperationException(String operation, String message) {
        super(ProblemCode.INVALID_REQUEST, operation + " failed: " + tail(message));
    }

    static String tail(String s) {
        String t = s == null ? "" : s.strip();
        return t.length() > 1500 ? t.substring(t.length() - 1500) : t;
    }
}
