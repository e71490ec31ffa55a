package dev.agentbox.sandbox;

import dev.agentbox.api.ProblemException;

/** A path that resolves outside the sandbox root: {@code 400 path-outside-sandbox}. */
public class PathOutsideSandboxException extends ProblemException {

    public PathOutsideSandboxException(String path) {
        super(400, "path-outside-sandbox", "Path resolves outside the sandbox: " + path);
    }
}
