package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.util.Map;

/**
 * A sandbox operation that failed for a reason the caller can act on (e.g. a file used as a
 * directory): {@code 400 invalid-request} with the operation and the tail of the tool's message. A
 * failed git command is the {@link GitFailedException} kind of it.
 */
public class SandboxOperationException extends ProblemException {

    public SandboxOperationException(String operation, String message) {
        super(ProblemCode.INVALID_REQUEST, operation + " failed: " + tail(message));
    }

    protected SandboxOperationException(
            ProblemCode code, String operation, String message, Map<String, Object> extensions) {
        super(code, operation + " failed: " + tail(message), extensions, null);
    }

    static String tail(String s) {
        String t = s == null ? "" : s.strip();
        return t.length() > 1500 ? t.substring(t.length() - 1500) : t;
    }
}
