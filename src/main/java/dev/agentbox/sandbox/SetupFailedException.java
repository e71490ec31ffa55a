package dev.agentbox.sandbox;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A workspace setup step failed: {@code 422 setup-failed} naming the step, its exit code and its
 * output tail.
 */
class SetupFailedException extends ProblemException {

    public SetupFailedException(String step, int exitCode, String reason, String outputTail) {
        super(
                ProblemCode.SETUP_FAILED,
                "setup failed: "
                        + step
                        + " ("
                        + reason
                        + ")"
                        + (outputTail.isEmpty() ? "" : "\n" + outputTail),
                extensions(step, exitCode),
                null);
    }

    private static Map<String, Object> extensions(String step, int exitCode) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("step", step);
        m.put("exitCode", exitCode);
        return m;
    }
}
