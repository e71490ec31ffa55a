package dev.agentbox.sandbox;

import dev.agentbox.api.ProblemException;

/** A create with a requested id that is already taken: {@code 409 sandbox-exists}. */
public class SandboxExistsException extends ProblemException {

    public SandboxExistsException(String id) {
        super(409, "sandbox-exists", "A sandbox with id " + id + " already exists.");
    }
}
