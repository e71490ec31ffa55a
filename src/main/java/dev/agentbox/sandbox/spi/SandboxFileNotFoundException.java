package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;

/** A file or directory that does not exist: {@code 404 not-found}. */
public class SandboxFileNotFoundException extends ProblemException {

    public SandboxFileNotFoundException(String path) {
        super(ProblemCode.NOT_FOUND, "No such file or directory in the sandbox: " + path);
    }
}
