package dev.agentbox.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error with an API problem code (see docs/api.md, "Errors"). Thrown anywhere below the
 * resources; {@link ProblemMapper} turns it into {@code application/problem+json}.
 * The detail must never hold a secret value or a stack trace.
 */
public class ProblemException extends RuntimeException {

    private final int status;
    private final String code;
    private final Map<String, Object> extensions;

    public ProblemException(int status, String code, String detail) {
        this(status, code, detail, Map.of(), null);
    }

    public ProblemException(int status, String code, String detail, Map<String, Object> extensions, Throwable cause) {
        super(detail, cause);
        this.status = status;
        this.code = code;
        this.extensions = Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
    }

    public static ProblemException invalidRequest(String detail) {
        return new ProblemException(400, "invalid-request", detail);
    }

    public static ProblemException notFound(String detail) {
        return new ProblemException(404, "not-found", detail);
    }

    public static ProblemException providerUnavailable(String detail, Throwable cause) {
        return new ProblemException(503, "provider-unavailable", detail, Map.of(), cause);
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public String detail() {
        return getMessage();
    }

    /** Extra members of the problem document, e.g. {@code provider} and {@code capability}. */
    public Map<String, Object> extensions() {
        return extensions;
    }
}
