package dev.agentbox.it.container;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * Echoes a JSON body, so the real JSON-B reader and the real problem mapper meet a malformed body.
 */
@Path("messages")
public class EchoResource {

    public record Message(String text) {}

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Message echo(Message message) {
        return message;
    }
}
