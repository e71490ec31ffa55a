package dev.agentbox.platform;

import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An incident id ties what a client sees to what the server logged: the client gets a short, safe
 * description plus the id; the exception text (SQL, an engine's response body, a file path) goes
 * only to the log, under the same id.
 *
 * <p>Invariant: {@link #text} never contains the exception's message.
 */
public record Incident(String id) {

    /**
     * Logs {@code thrown} at {@code level} with {@code context} and a new incident id, and returns
     * the incident.
     */
    public static Incident log(Logger log, Level level, String context, Throwable thrown) {
        Incident incident = new Incident(UUID.randomUUID().toString());
        log.log(level, context + " (incident " + incident.id + ")", thrown);
        return incident;
    }

    /** {@code "<safe description> (incident <id>)"}: what a response or a run's error may carry. */
    public String text(String safeDescription) {
        return safeDescription + " (incident " + id + ")";
    }
}
