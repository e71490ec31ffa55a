package dev.agentbox.problem;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Every problem code the API answers with, with its HTTP status and title (docs/api.md, "Errors").
 * The one place a code, its status and its title are paired: domain code names a {@code
 * ProblemCode}, never a status number, and only the {@code api} package turns it into {@code
 * application/problem+json}.
 */
public enum ProblemCode {
    INVALID_REQUEST(400, "Invalid request"),
    UNAUTHORIZED(401, "Unauthorized"),
    FORBIDDEN(403, "Forbidden"),
    NOT_FOUND(404, "Not found"),
    AGENT_NOT_FOUND(404, "Agent not found"),
    METHOD_NOT_ALLOWED(405, "Method not allowed"),
    NOT_ACCEPTABLE(406, "Not acceptable"),
    PAYLOAD_TOO_LARGE(413, "Payload too large"),
    UNSUPPORTED_MEDIA_TYPE(415, "Unsupported media type"),
    RUN_EXISTS(409, "Run already exists"),
    INTERRUPT_ANSWERED(409, "Interrupt already answered"),
    RUN_ID_REQUIRED(400, "Run id required"),
    UNSUPPORTED_CAPABILITY(422, "Unsupported capability"),
    PATH_OUTSIDE_SANDBOX(400, "Path outside sandbox"),
    PROVIDER_UNAVAILABLE(503, "Provider unavailable"),
    SETUP_FAILED(422, "Workspace setup failed"),
    IMAGE_NOT_ALLOWED(400, "Image not allowed"),
    FILE_TOO_LARGE(413, "File too large"),
    QUOTA_EXCEEDED(429, "Quota exceeded"),
    SANDBOX_EXISTS(409, "Sandbox already exists"),
    SANDBOX_NOT_RUNNING(409, "Sandbox not running"),
    GIT_FAILED(409, "Git operation failed"),
    AGENT_LOST(404, "Agent lost"),
    PORT_UNREACHABLE(502, "Port unreachable"),
    PORT_TIMEOUT(504, "Port timeout"),
    INTERNAL_ERROR(500, "Internal server error");

    private final int status;
    private final String title;
    private final String code;

    ProblemCode(int status, String title) {
        this.status = status;
        this.title = title;
        this.code = name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The code as it appears on the wire, e.g. {@code invalid-request}. */
    public String code() {
        return code;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    /** The code for a wire spelling, if it is one of ours. */
    public static Optional<ProblemCode> of(String code) {
        return Arrays.stream(values()).filter(c -> c.code.equals(code)).findFirst();
    }

    /** The code for a bare HTTP status, for errors raised by the container itself. */
    public static ProblemCode forStatus(int status) {
        return switch (status) {
            case 400 -> INVALID_REQUEST;
            case 401 -> UNAUTHORIZED;
            case 403 -> FORBIDDEN;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 413 -> PAYLOAD_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 503 -> PROVIDER_UNAVAILABLE;
            default -> status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
        };
    }

    @Override
    public String toString() {
        return code;
    }
}
