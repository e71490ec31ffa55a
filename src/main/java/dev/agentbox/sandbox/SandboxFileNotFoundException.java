package dev.agentbox.sandbox;

import dev.agentbox.api.ProblemException;

/** A file or directory that does not exist: {@code 404 not-found}. */
public class SandboxFileNotFoundException extends ProblemException {

    public SandboxFileNotFoundException(String path) {
        super(404, "not-found", "No such file or directory in the sandbox: " + path);
    }
}
