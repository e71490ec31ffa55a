package dev.agentbox.problem;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A failure the caller can act on, named by a {@link ProblemCode}. Thrown anywhere below the
 * resources; the {@code api} package alone turns it into {@code application/problem+json}. The
 * detail must never hold a secret value or a stack trace.
 */
public class ProblemException extends RuntimeException {

    private final ProblemCode code;
    private final Map<String, Object> extensions;

    public ProblemException(ProblemCode code, String detail) {
        this(code, detail, Map.of(), null);
    }

    public ProblemException(
            ProblemCode code, String detail, Map<String, Object> extensions, Throwable cause) {
        super(detail, cause);
        this.code = code;
        this.extensions = Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
    }

    public static ProblemException invalidRequest(String detail) {
        return new ProblemException(ProblemCode.INVALID_REQUEST, detail);
    }

    /**
     * {@code 400 invalid-request} about one member of a request body: the detail starts with the
     * member's path ({@code workspace.setup[1][0]}, {@code env.A}) and the {@code field} member
     * names it.
     */
    public static ProblemException invalidField(String field, String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }

    public static ProblemException notFound(String detail) {
        return new ProblemException(ProblemCode.NOT_FOUND, detail);
    }

    public static ProblemException providerUnavailable(String detail, Throwable cause) {
        return new ProblemException(ProblemCode.PROVIDER_UNAVAILABLE, detail, Map.of(), cause);
    }

    public ProblemCode code() {
        return code;
    }

    /**
     * The HTTP status of the code; only the edge and tests look at it, domain code branches on
     * {@link #code()}.
     */
    public int status() {
        return code.status();
    }

    public String detail() {
        return getMessage();
    }

    /** Extra members of the problem document, e.g. {@code provider} and {@code capability}. */
    public Map<String, Object> extensions() {
        return extensions;
    }
}
