package dev.agentbox.api;

import dev.agentbox.problem.ProblemException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A request body that the runtime cannot read into the resource's parameter is the client's error:
 * {@code 400 invalid-request} with a fixed detail, never a 500 and never the parser's own message
 * (which names parser classes and internal positions).
 *
 * <ul>
 *   <li>The JSON-P provider answers a body nested too deep (it overflows the stack) with its own
 *       {@code 500}; JSON-B errors carry class names in their messages.
 *   <li>A {@link ProblemException} raised while reading (the body limit's 413) passes as is.
 * </ul>
 */
@Provider
public class BodyReadInterceptor implements ReaderInterceptor {

    private static final Logger LOG = Logger.getLogger(BodyReadInterceptor.class.getName());

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        try {
            return context.proceed();
        } catch (RuntimeException | IOException | StackOverflowError e) {
            ProblemException problem = problemIn(e);
            if (problem != null) {
                throw problem;
            }
            if (e instanceof WebApplicationException wae && wae.getResponse().getStatus() < 500) {
                throw wae;
            }
            LOG.log(Level.FINE, "Unreadable request body", e);
            throw ProblemException.invalidRequest(
                    "The request body is not valid "
                            + context.getMediaType()
                            + " for this endpoint.");
        }
    }

    private static ProblemException problemIn(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ProblemException p) {
                return p;
            }
        }
        return null;
    }
}
