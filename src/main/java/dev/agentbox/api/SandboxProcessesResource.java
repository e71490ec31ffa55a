package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Quota;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.sandbox.SandboxProcessRegistry;
import dev.agentbox.sandbox.SandboxProviders;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessSignal;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import dev.agentbox.sandbox.store.SandboxInstance;
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
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Background processes of a sandbox: spawn, stream output (SSE), write stdin, kill. */
@Path("v1/sandboxes/{key}/processes")
@RequestScoped
@Tag(name = "processes")
public class SandboxProcessesResource {

    @Inject Caller caller;

    @Inject SandboxService sandboxes;

    @Inject SandboxProcessRegistry registry;

    @Inject SandboxProviders providers;

    @Inject TenantQuotas quotas;

    @Inject SseHeartbeat heartbeats;

    @PathParam("key")
    String key;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "startProcess", summary = "Start a background process")
    @RequestBody(ref = "Process")
    @APIResponse(responseCode = "201", ref = "ProcessStarted")
    @APIResponse(responseCode = "422", ref = "UnsupportedCapability")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response spawn(JsonValue body) {
        ExecRequest request = ExecRequest.parse(body);
        // The tenant's process slot is held until the process exits (a kill ends it too).
        SandboxProcess process =
                quotas.holdUntil(
                        caller.tenant(),
                        Quota.PROCESSES,
                        () ->
                                sandboxes
                                        .open(caller.tenant(), key)
                                        .handle()
                                        .process()
                                        .spawn(request.command(), request.options(false)),
                        SandboxProcess::onExit);
        registry.register(caller.tenant(), key, process);
        return Response.status(201).entity(Map.of("pid", process.id())).build();
    }

    @GET
    @Path("{pid}/output")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(
            operationId = "streamProcessOutput",
            summary = "A background process's output (SSE), then its exit code")
    @APIResponse(responseCode = "200", ref = "ProcessOutput")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public void output(@PathParam("pid") String pid, @Context SseEventSink sink, @Context Sse sse) {
        SandboxProcess process = process(pid);
        Slot slot = quotas.acquire(caller.tenant(), Quota.STREAMS);
        AutoCloseable[] subscription = new AutoCloseable[1];
        ScheduledFuture<?>[] heartbeat = new ScheduledFuture<?>[1];
        // Every end of the stream (exit sent, client gone, failure) releases the slot once.
        Runnable stop =
                () -> {
                    slot.close();
                    closeQuietly(subscription[0]);
                    if (heartbeat[0] != null) {
                        heartbeat[0].cancel(false);
                    }
                };
        try {
            subscription[0] = subscribe(process, sink, sse, stop);
            // A client that left a quiet process is only noticed on a write: without a
            // heartbeat its stream slot would stay taken until the process printed again.
            heartbeat[0] = heartbeats.start(sink, sse, "", stop);
            if (sink.isClosed()) {
                stop.run(); // the process had exited already: its exit event was sent during
                // subscribe
            }
        } catch (RuntimeException e) {
            stop.run();
            throw e;
        }
    }

    private static AutoCloseable subscribe(
            SandboxProcess process, SseEventSink sink, Sse sse, Runnable stop) {
        return process.subscribe(
                new SandboxProcess.OutputListener() {
                    @Override
                    public void onOutput(OutputChunk chunk) {
                        if (!sink.isClosed()) {
                            sink.send(
                                            sse.newEventBuilder()
                                                    .name(chunk.stream().wireName())
                                                    .data(chunk.text())
                                                    .build())
                                    .whenComplete(
                                            (ok, failed) -> {
                                                if (failed != null) {
                                                    stop.run();
                                                }
                                            });
                        }
                    }

                    @Override
                    public void onExit(int exitCode) {
                        if (!sink.isClosed()) {
                            sink.send(
                                            sse.newEventBuilder()
                                                    .name("exit")
                                                    .mediaType(MediaType.APPLICATION_JSON_TYPE)
                                                    .data("{\"exitCode\":" + exitCode + "}")
                                                    .build())
                                    .whenComplete(
                                            (ok, failed) -> {
                                                sink.close();
                                                stop.run();
                                            });
                        } else {
                            stop.run();
                        }
                    }
                });
    }

    /**
     * Writes the body to the process's stdin; with {@code eof=true} closes stdin after the body (an
     * empty body just closes it), so "write then close" is one call and a reader such as {@code
     * cat} sees end of input. Closing twice is quiet. Capability {@code writableStdin}, else 422.
     */
    @POST
    @Path("{pid}/stdin")
    @Consumes({MediaType.TEXT_PLAIN, MediaType.WILDCARD})
    @Operation(
            operationId = "writeProcessStdin",
            summary = "Write text to a background process's stdin; eof=true closes stdin after it")
    @RequestBody(ref = "Stdin")
    @APIResponse(responseCode = "204", description = "Written (and closed with eof=true)")
    @APIResponse(responseCode = "422", ref = "UnsupportedCapability")
    public Response stdin(
            @PathParam("pid") String pid, @QueryParam("eof") String eof, String text) {
        boolean close = flag("eof", eof);
        SandboxProcess process = process(pid);
        if (text != null && !text.isEmpty()) {
            process.writeStdin(text);
        } else if (!close) {
            process.writeStdin("");
        }
        if (close) {
            process.closeStdin();
        }
        return Response.noContent().build();
    }

    /**
     * Without {@code signal}: kills the process group (TERM, then KILL after a short grace). With
     * {@code signal} (one of {@link ProcessSignal}, with or without {@code SIG}): sends that signal
     * once to the group and returns; the process may trap it. Capability {@code killableProcesses},
     * else 422.
     */
    @DELETE
    @Path("{pid}")
    @Operation(
            operationId = "killProcess",
            summary =
                    "Kill a background process's group, or send it one signal (TERM, INT, KILL, HUP, QUIT, USR1, USR2)")
    @APIResponse(responseCode = "204", description = "Killed, or the signal sent")
    @APIResponse(responseCode = "422", ref = "UnsupportedCapability")
    public Response kill(@PathParam("pid") String pid, @QueryParam("signal") String signal) {
        Optional<ProcessSignal> chosen = Optional.empty();
        if (signal != null) {
            chosen = ProcessSignal.parse(signal);
            if (chosen.isEmpty()) {
                throw new ProblemException(
                        ProblemCode.INVALID_REQUEST,
                        "signal must be one of " + ProcessSignal.names() + " (with or without SIG)",
                        Map.of("field", "signal"),
                        null);
            }
        }
        SandboxProcess process = process(pid);
        requireCapability(Capability.KILLABLE_PROCESSES);
        if (chosen.isPresent()) {
            process.signal(chosen.get());
        } else {
            process.kill();
        }
        return Response.noContent().build();
    }

    private void requireCapability(Capability capability) {
        SandboxInstance instance = sandboxes.find(caller.tenant(), key);
        SandboxCapabilities caps =
                providers.find(instance.provider()).map(p -> p.capabilities()).orElse(null);
        if (caps != null && !has(caps, capability)) {
            throw new UnsupportedCapabilityException(instance.provider(), capability);
        }
    }

    private static boolean has(SandboxCapabilities caps, Capability capability) {
        return switch (capability) {
            case KILLABLE_PROCESSES -> caps.killableProcesses();
            case WRITABLE_STDIN -> caps.writableStdin();
            default -> true;
        };
    }

    private static boolean flag(String name, String value) {
        if (value == null || value.equals("false")) {
            return false;
        }
        if (value.equals("true") || value.isEmpty()) {
            return true;
        }
        throw new ProblemException(
                ProblemCode.INVALID_REQUEST,
                name + " must be true or false",
                Map.of("field", name),
                null);
    }

    private SandboxProcess process(String pid) {
        sandboxes.find(caller.tenant(), key);
        return registry.find(caller.tenant(), key, pid)
                .orElseThrow(
                        () ->
                                ProblemException.notFound(
                                        "No process "
                                                + pid
                                                + " in sandbox "
                                                + key
                                                + " on this server"));
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
