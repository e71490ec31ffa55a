package dev.agentbox.api;

import dev.agentbox.quota.Quota;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.sandbox.FileWatch;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.ScheduledFuture;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /sandboxes/{key}/file-events}: SSE of {@code {"type","path"}} for changes under the
 * workspace. A heartbeat comment ({@link SseHeartbeat}) notices a client that went away, which
 * stops the watcher (a disconnect is only seen on a write).
 */
@Path("v1/sandboxes/{key}/file-events")
@RequestScoped
@Tag(name = "files")
public class FileEventsResource {

    @Inject Caller caller;

    @Inject SandboxService sandboxes;

    @Inject TenantQuotas quotas;

    @Inject SseHeartbeat heartbeats;

    @Resource ManagedScheduledExecutorService scheduler;

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(
            operationId = "streamFileEvents",
            summary = "Changes under the workspace as server-sent events (create, change, delete)")
    @APIResponse(responseCode = "200", ref = "FileEvents")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public void events(@PathParam("key") String key, @Context SseEventSink sink, @Context Sse sse) {
        SandboxHandle handle = sandboxes.open(caller.tenant(), key).handle();
        Slot slot = quotas.acquire(caller.tenant(), Quota.STREAMS);
        FileWatch[] watch = new FileWatch[1];
        ScheduledFuture<?>[] heartbeat = new ScheduledFuture<?>[1];
        Runnable stop =
                () -> {
                    slot.close();
                    if (watch[0] != null) {
                        watch[0].close();
                    }
                    if (heartbeat[0] != null) {
                        heartbeat[0].cancel(false);
                    }
                    sink.close();
                };
        try {
            watch(handle, sink, sse, watch, heartbeat, stop);
        } catch (RuntimeException e) {
            // The sink stays open for the problem response; only the slot and the watch go.
            slot.close();
            if (watch[0] != null) {
                watch[0].close();
            }
            throw e;
        }
    }

    private void watch(
            SandboxHandle handle,
            SseEventSink sink,
            Sse sse,
            FileWatch[] watch,
            ScheduledFuture<?>[] heartbeat,
            Runnable stop) {
        watch[0] =
                FileWatch.start(
                        handle,
                        event -> {
                            if (sink.isClosed()) {
                                stop.run();
                                return;
                            }
                            String data =
                                    Json.createObjectBuilder()
                                            .add("type", event.type())
                                            .add("path", event.path())
                                            .build()
                                            .toString();
                            sink.send(
                                            sse.newEventBuilder()
                                                    .name(event.type())
                                                    .mediaType(MediaType.APPLICATION_JSON_TYPE)
                                                    .data(data)
                                                    .build())
                                    .whenComplete(
                                            (ok, failed) -> {
                                                if (failed != null) {
                                                    stop.run();
                                                }
                                            });
                        },
                        scheduler);
        sink.send(sse.newEventBuilder().comment("watching").build());
        heartbeat[0] = heartbeats.start(sink, sse, "heartbeat", stop);
    }
}
