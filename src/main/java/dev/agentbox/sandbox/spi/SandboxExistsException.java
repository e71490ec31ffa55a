package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;

/** A create with a requested id that is already taken: {@code 409 sandbox-exists}. */
public class SandboxExistsException extends ProblemException {

    public SandboxExistsException(String id) {
        super(ProblemCode.SANDBOX_EXISTS, "A sandbox with id " + id + " already exists.");
    }
}
