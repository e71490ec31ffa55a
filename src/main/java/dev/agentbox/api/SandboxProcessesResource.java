package dev.agentbox.api;

import dev.agentbox.sandbox.OutputChunk;
import dev.agentbox.sandbox.SandboxProcess;
import dev.agentbox.sandbox.SandboxProcessRegistry;
import dev.agentbox.sandbox.SandboxService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.Map;

/** Background processes of a sandbox: spawn, stream output (SSE), write stdin, kill. */
@Path("v1/sandboxes/{key}/processes")
@RequestScoped
public class SandboxProcessesResource {

    @Inject
    Caller caller;

    @Inject
    SandboxService sandboxes;

    @Inject
    SandboxProcessRegistry registry;

    @PathParam("key")
    String key;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response spawn(JsonValue body) {
        ExecRequest request = ExecRequest.parse(body);
        SandboxProcess process = sandboxes.open(caller.tenant(), key).handle().process()
                .spawn(request.command(), request.options(false));
        registry.register(caller.tenant(), key, process);
        return Response.status(201).entity(Map.of("pid", process.id())).build();
    }

    @GET
    @Path("{pid}/output")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void output(@PathParam("pid") String pid, @Context SseEventSink sink, @Context Sse sse) {
        SandboxProcess process = process(pid);
        AutoCloseable[] subscription = new AutoCloseable[1];
        subscription[0] = process.subscribe(new SandboxProcess.OutputListener() {
            @Override
            public void onOutput(OutputChunk chunk) {
                if (!sink.isClosed()) {
                    sink.send(sse.newEventBuilder().name(chunk.stream().wireName()).data(chunk.text()).build())
                            .whenComplete((ok, failed) -> {
                                if (failed != null) {
                                    closeQuietly(subscription[0]);
                                }
                            });
                }
            }

            @Override
            public void onExit(int exitCode) {
                if (!sink.isClosed()) {
                    sink.send(sse.newEventBuilder().name("exit").mediaType(MediaType.APPLICATION_JSON_TYPE)
                            .data("{\"exitCode\":" + exitCode + "}").build())
                            .whenComplete((ok, failed) -> sink.close());
                }
            }
        });
    }

    @POST
    @Path("{pid}/stdin")
    @Consumes({MediaType.TEXT_PLAIN, MediaType.WILDCARD})
    public Response stdin(@PathParam("pid") String pid, String text) {
        process(pid).writeStdin(text == null ? "" : text);
        return Response.noContent().build();
    }

    @DELETE
    @Path("{pid}")
    public Response kill(@PathParam("pid") String pid) {
        process(pid).kill();
        return Response.noContent().build();
    }

    private SandboxProcess process(String pid) {
        sandboxes.find(caller.tenant(), key);
        return registry.find(caller.tenant(), key, pid)
                .orElseThrow(() -> ProblemException.notFound("No process " + pid + " in sandbox " + key + " on this server"));
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (Exception ignored) {
            // the listener is gone either way
        }
    }
}
