package dev.agentbox.api;

import dev.agentbox.platform.Incident;
import dev.agentbox.platform.body.Violations;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.QuotaExceededException;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import jakarta.json.bind.JsonbException;
import jakarta.json.stream.JsonParsingException;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The single exception mapper: every error leaving a resource, including the JAX-RS runtime's own
 * (unknown path, wrong method, unreadable body), becomes {@code application/problem+json}.
 * Unexpected exceptions are logged with an incident id and answered without internals.
 */
@Provider
public class ProblemMapper implements ExceptionMapper<Throwable> {

    private static final Logger LOG = Logger.getLogger(ProblemMapper.class.getName());

    @Override
    public Response toResponse(Throwable thrown) {
        ProblemException problem = find(thrown, ProblemException.class);
        if (problem instanceof QuotaExceededException quota
                && quota.retryAfterSeconds().isPresent()) {
            return Problems.builder(problem.code(), problem.detail(), problem.extensions())
                    .header("Retry-After", quota.retryAfterSeconds().getAsInt())
                    .build();
        }
        if (problem != null) {
            return Problems.response(problem);
        }
        ConstraintViolationException violated = find(thrown, ConstraintViolationException.class);
        if (violated != null && !violated.getConstraintViolations().isEmpty()) {
            // Request bodies are validated where they are read (JsonBody); this covers any other
            // validation the runtime does, with the same wire.
            return Problems.response(Violations.problem(violated.getConstraintViolations()));
        }
        UnsupportedCapabilityException unsupported =
                find(thrown, UnsupportedCapabilityException.class);
        if (unsupported != null) {
            return Problems.response(
                    ProblemCode.UNSUPPORTED_CAPABILITY,
                    unsupported.getMessage(),
                    Map.of(
                            "provider",
                            unsupported.provider(),
                            "capability",
                            unsupported.capability().wireName()));
        }
        JsonParsingException parsing = find(thrown, JsonParsingException.class);
        if (parsing != null || find(thrown, JsonbException.class) != null) {
            // Only the position: the parsers' messages name their own classes and states.
            String where =
                    parsing == null || parsing.getLocation() == null
                            ? ""
                            : " at line "
                                    + parsing.getLocation().getLineNumber()
                                    + ", column "
                                    + parsing.getLocation().getColumnNumber();
            return Problems.response(
                    ProblemCode.INVALID_REQUEST, "Malformed JSON body" + where + ".", Map.of());
        }
        if (thrown instanceof WebApplicationException wae && wae.getResponse().getStatus() < 500) {
            int status = wae.getResponse().getStatus();
            Response.ResponseBuilder rb =
                    Problems.builder(
                            ProblemCode.forStatus(status), detailFor(wae, status), Map.of());
            if (thrown instanceof NotAllowedException) {
                String allow = wae.getResponse().getHeaderString("Allow");
                if (allow != null) {
                    rb.header("Allow", allow);
                }
            }
            return rb.build();
        }
        Incident incident = Incident.log(LOG, Level.SEVERE, "Unhandled error", thrown);
        return Problems.response(
                ProblemCode.INTERNAL_ERROR,
                incident.text("Unexpected server error"),
                Map.of("incident", incident.id()));
    }

    private static String detailFor(WebApplicationException e, int status) {
        return switch (status) {
            case 404 -> "No resource at this path.";
            case 405 -> "This method is not allowed on this resource.";
            case 406 -> "No acceptable representation.";
            case 415 -> "Unsupported content type.";
            default -> e.getMessage() == null ? "Request rejected." : firstLine(e.getMessage());
        };
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() > 300 ? line.substring(0, 300) : line;
    }
}
