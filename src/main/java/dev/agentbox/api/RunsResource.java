package dev.agentbox.api;

import dev.agentbox.interrupt.InterruptAnswer;
import dev.agentbox.interrupt.Interrupts;
import dev.agentbox.platform.PageCursor;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Quota;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.run.RunRequest;
import dev.agentbox.run.RunService;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.sandbox.SandboxService;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Durable agent runs: start, inspect, stream (replay-then-tail), cancel. */
@Path("v1")
@RequestScoped
@Tag(name = "runs")
public class RunsResource {

    private static final Pattern OFFSET = Pattern.compile("[0-9]{1,18}");

    @Inject Caller caller;

    @Inject RunService runs;

    @Inject SandboxService sandboxes;

    @Inject TenantQuotas quotas;

    @Inject Interrupts interrupts;

    /**
     * Drivers and event streams are long-lived loops (minutes): each gets its own managed thread
     * rather than a slot of the shared pool, which grows only slowly and would leave new streams
     * waiting behind old ones.
     */
    @Resource ManagedThreadFactory threads;

    @POST
    @Path("runs")
    @Consumes(MediaType.APPLICATION_JSON)
    // qs: JSON unless the client asks for the stream (a missing or */* Accept means JSON).
    @Produces("application/json;qs=1")
    @Operation(
            operationId = "startRun",
            summary =
                    "Start a durable agent run; 202 at once (or stream it with Accept: text/event-stream)",
            description =
                    "runId and threadId: 1-200 printable characters. maxDurationMs bounds the run (default "
                            + "agentbox.runs.max-duration-ms, 0 = none): past it the run ends aborted with code max-duration. A run "
                            + "ends in exactly one terminal status (completed, failed, aborted) with its error code: agent-exit, "
                            + "agent-lost, journal-stalled, journal-timeout, setup-failed, aborted, max-duration, replay-diverged, "
                            + "budget-exceeded, tool-bridge-failed, secret-missing, internal-error. If its server dies, another server drives it on within about lease TTL "
                            + "+ reaper interval + quiet window, watched or not. fileEvents: true adds CUSTOM file.changed "
                            + "chunks ({path, kind: create|change|delete}) for changes in the workspace, coalesced and bounded. "
                            + "permissionMode (claude-code and codex only): default, acceptEdits, plan or bypassPermissions "
                            + "(the default: the agent edits files and runs commands in its sandbox without asking).")
    @RequestBody(ref = "Run")
    @APIResponse(responseCode = "200", ref = "RunEvents")
    @APIResponse(responseCode = "202", ref = "RunAccepted")
    @APIResponse(responseCode = "409", ref = "RunExists")
    @APIResponse(responseCode = "422", ref = "SetupFailed")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    @APIResponse(responseCode = "503", ref = "ProviderUnavailable")
    public Response start(JsonValue body) {
        RunRecordView run = runs.start(caller.tenant(), parse(body));
        return Response.accepted(RunViews.accepted(run).toString())
                .type(MediaType.APPLICATION_JSON)
                .build();
    }

    @POST
    @Path("runs")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces("text/event-stream;qs=0.5")
    // One operation with start(): the same answers, told apart by Accept.
    @APIResponse(responseCode = "200", ref = "RunEvents")
    public void startStreaming(JsonValue body, @Context SseEventSink sink, @Context Sse sse) {
        // The stream's slot first: a run must not start for a stream that is refused.
        Slot slot = quotas.acquire(caller.tenant(), Quota.STREAMS);
        try {
            RunRecordView run = runs.start(caller.tenant(), parse(body));
            stream(run, 0, sink, sse, slot);
        } catch (RuntimeException e) {
            slot.close();
            throw e;
        }
    }

    @GET
    @Path("runs")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "listRuns",
            summary =
                    "The tenant's runs, newest first, by ?threadId and ?status; pages of ?limit (1-200, default 200), the next page by the Link rel=\"next\" header (its ?cursor)",
            description =
                    "status is reported, not stored: interrupted = not terminal and no live driver (its driver "
                            + "lease expired or was released, or its server's database session ended) until a successor "
                            + "takes it over; then running again. ?status=running lists only runs with a live driver, "
                            + "?status=interrupted only those without. A page ends with a Link: <...>; rel=\"next\" "
                            + "header when more runs follow; its ?cursor is opaque and keeps the filters.")
    @APIResponse(responseCode = "200", ref = "RunPage")
    public Response list(
            @QueryParam("threadId") String threadId,
            @QueryParam("status") String status,
            @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor,
            @Context UriInfo uri) {
        if (threadId != null) {
            RunRequest.requireId("threadId", threadId);
        }
        Optional<RunStatus> s;
        try {
            s = Optional.ofNullable(status).map(RunStatus::parse);
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalidRequest(
                    "status must be running, interrupted, completed, failed or aborted");
        }
        Paging paging = Paging.of(limit, cursor);
        List<RunRecordView> fetched =
                runs.list(
                        caller.tenant(),
                        Optional.ofNullable(threadId),
                        s,
                        paging.after(),
                        paging.fetch());
        JsonArrayBuilder a = Json.createArrayBuilder();
        paging.page(fetched).forEach(r -> a.add(RunViews.record(r)));
        return paging.linkNext(
                        Response.ok(a.build().toString(), MediaType.APPLICATION_JSON_TYPE),
                        fetched,
                        r -> new PageCursor(r.startedAt(), r.runId()),
                        uri)
                .build();
    }

    @GET
    @Path("runs/{runId: .+}/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(
            operationId = "streamRunEvents",
            summary =
                    "SSE of the run's chunks: replay after Last-Event-ID (or ?after), then tail until the terminal chunk")
    @APIResponse(responseCode = "200", ref = "RunEvents")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public void events(
            @PathParam("runId") String runId,
            @HeaderParam("Last-Event-ID") String lastEventId,
            @QueryParam("after") String after,
            @Context SseEventSink sink,
            @Context Sse sse) {
        RunRecordView run = runs.get(caller.tenant(), runId);
        long afterSeq = offset(lastEventId != null ? lastEventId : after);
        Slot slot = quotas.acquire(caller.tenant(), Quota.STREAMS);
        try {
            stream(run, afterSeq, sink, sse, slot);
        } catch (RuntimeException e) {
            slot.close();
            throw e;
        }
    }

    @GET
    @Path("runs/{runId: .+}/log")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "getRunLog",
            summary =
                    "One page of the stored log: chunks after the offset ?after (exclusive, like Last-Event-ID), "
                            + "at most ?limit (1-1000, default 1000); page on with the last offset returned")
    @APIResponse(responseCode = "200", ref = "RunLog")
    public String log(
            @PathParam("runId") String runId,
            @QueryParam("after") String after,
            @QueryParam("limit") String limit) {
        LogPage page = LogPage.parse(after, limit);
        return RunViews.log(
                runs.snapshot(runs.get(caller.tenant(), runId), page.after(), page.limit()));
    }

    @POST
    @Path("runs/{runId: .+}/cancel")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "cancelRun",
            summary =
                    "Cancel a run on any server: its live driver stops within about a second; a run whose server "
                            + "died is claimed by this server, its sandbox destroyed and the run ended aborted")
    @APIResponse(responseCode = "202", ref = "Run")
    public Response cancel(@PathParam("runId") String runId) {
        return Response.accepted(
                        RunViews.record(runs.reported(runs.cancel(caller.tenant(), runId)))
                                .toString())
                .build();
    }

    @GET
    @Path("runs/{runId: .+}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "getRun",
            summary =
                    "The run record; status interrupted while the run is not terminal and no live driver holds it")
    @APIResponse(responseCode = "200", ref = "Run")
    public String get(@PathParam("runId") String runId) {
        RunRecordView run = runs.reported(runs.get(caller.tenant(), runId));
        return RunViews.record(run, interrupts.pending(run)).toString();
    }

    @POST
    @Path("runs/{runId: .+}/interrupts/{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "answerInterrupt",
            summary =
                    "Answer a pending interrupt of the run: {\"status\":\"resolved|cancelled\",\"payload?\"}; 204",
            description =
                    "An approval's payload is {\"approved\":true|false,\"arguments?\":{...}} (edited arguments "
                            + "replace the agent's); cancelled refuses the call. The same answer twice is 204; "
                            + "an interrupt answered differently, expired or cancelled is 409 interrupt-answered "
                            + "(an expired one: interruptStatus cancelled, cancelReason expired); "
                            + "an unknown run or interrupt (or another tenant's) is 404.")
    @RequestBody(ref = "InterruptAnswer")
    @APIResponse(responseCode = "204", description = "Answered (or already answered the same way)")
    @APIResponse(responseCode = "409", ref = "InterruptAnswered")
    public Response answer(
            @PathParam("runId") String runId, @PathParam("id") String interruptId, JsonValue body) {
        // The body first: a bad body is 400 whether or not the run exists.
        InterruptAnswer answer = InterruptAnswer.parse(body == null ? JsonValue.NULL : body);
        interrupts.answer(runs.get(caller.tenant(), runId), interruptId, answer);
        return Response.noContent().build();
    }

    @GET
    @Path("threads/{threadId}/active-run")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "getActiveRun",
            summary =
                    "The thread's newest non-terminal run (status running or interrupted), else 404")
    @APIResponse(responseCode = "200", ref = "Run")
    public String activeRun(@PathParam("threadId") String threadId) {
        return RunViews.record(runs.activeRun(caller.tenant(), threadId)).toString();
    }

    /**
     * The offset to resume after: absent = 0, else only the digits of an offset this stream sent.
     * No trimming (a control character is not an offset) and no sign: a negative offset would
     * replay from before the log's start and never end.
     */
    static long offset(String from) {
        if (from == null || from.isEmpty()) {
            return 0;
        }
        if (!OFFSET.matcher(from).matches()) {
            throw ProblemException.invalidRequest(
                    "Last-Event-ID / after must be an offset this stream sent");
        }
        return Long.parseLong(from);
    }

    private RunRequest parse(JsonValue body) {
        if (body == null) {
            throw ProblemException.invalidRequest("body a JSON object is required");
        }
        return RunRequest.parse(body, sandboxes.specParser());
    }

    /** Streams the run's log after {@code afterSeq} (see {@link RunEventsSse}). */
    private void stream(RunRecordView run, long afterSeq, SseEventSink sink, Sse sse, Slot slot) {
        RunEventsSse.start(runs, threads, run, afterSeq, sink, sse, slot, RunEventsSse.Form.STORED);
    }
}
