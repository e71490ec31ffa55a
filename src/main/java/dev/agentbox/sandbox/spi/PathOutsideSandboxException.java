package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;

/** A path that resolves outside the sandbox root: {@code 400 path-outside-sandbox}. */
public class PathOutsideSandboxException extends ProblemException {

    public PathOutsideSandboxException(String path) {
        super(ProblemCode.PATH_OUTSIDE_SANDBOX, "Path resolves outside the sandbox: " + path);
    }
}
