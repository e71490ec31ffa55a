package dev.agentbox.api;

import dev.agentbox.agent.AgUiSegment;
import dev.agentbox.agent.AgentService;
import dev.agentbox.agent.store.AgentThread;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Quota;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.run.RunService;
import dev.agentbox.run.store.RunRecordView;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Agent definitions and the AG-UI endpoint: {@code POST /agents/{agentId}} takes a RunAgentInput
 * and streams the run's AG-UI events; the GETs serve what {@code @tanstack/ai-client} loads (a
 * thread's messages, a run to join). The SSE methods produce only {@code text/event-stream}, so a
 * request without {@code Accept} (or with {@code *}{@code /*}) gets the stream.
 */
@Path("v1/agents")
@RequestScoped
@Tag(name = "agents")
public class AgentsResource {

    @Inject Caller caller;

    @Inject AgentService agents;

    @Inject RunService runs;

    @Inject TenantQuotas quotas;

    /** Stream pumps are long-lived: a managed thread each (see {@link RunsResource}). */
    @Resource ManagedThreadFactory threads;

    @PUT
    @Path("{agentId}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "putAgent",
            summary =
                    "Create (201, showing the definition's webhook signingSecret once) or replace (200) an agent definition: sandbox ensure body without secrets, harness, command, permissionMode, durable, detachOnDisconnect, destroyOnComplete, maxDurationMs, tools, webhooks",
            description =
                    "Validated as POST /runs validates a run; a secrets member anywhere in sandbox is refused. At most "
                            + "agentbox.agents.max-per-tenant definitions per tenant (429 quota-exceeded).")
    @RequestBody(ref = "AgentDefinition")
    @APIResponse(responseCode = "200", ref = "AgentDefinition")
    @APIResponse(responseCode = "201", ref = "AgentDefinitionCreated")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response put(@PathParam("agentId") String agentId, JsonValue body) {
        if (body == null) {
            throw ProblemException.invalidRequest("body a JSON object is required");
        }
        boolean created = agents.put(caller.tenant(), agentId, body);
        JsonObject view = agents.get(caller.tenant(), agentId).toJson();
        if (created) {
            // Shown once, to the creator: GET never returns it.
            JsonObjectBuilder b = Json.createObjectBuilder(view);
            agents.signingSecret(caller.tenant(), agentId)
                    .ifPresent(s -> b.add("signingSecret", s));
            view = b.build();
        }
        return Response.status(created ? Response.Status.CREATED : Response.Status.OK)
                .entity(view.toString())
                .type(MediaType.APPLICATION_JSON)
                .build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "listAgents",
            summary = "The tenant's agent definitions, sorted by agentId")
    @APIResponse(responseCode = "200", ref = "AgentDefinitions")
    public String list() {
        JsonArrayBuilder a = Json.createArrayBuilder();
        agents.list(caller.tenant()).forEach(d -> a.add(d.toJson()));
        return a.build().toString();
    }

    @GET
    @Path("{agentId}/threads")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "listAgentThreads",
            summary = "The agent's threads, newest turn first",
            description =
                    "Each thread the agent has turns in: threadId, title (the first line of its first prompt, "
                            + "at most 80 characters; absent when blank), createdAt (its first turn), updatedAt "
                            + "(its newest turn) and turns. ?limit from 1 to 200, default 50.")
    @Parameter(
            name = "limit",
            in = ParameterIn.QUERY,
            description = "How many threads, 1 to 200 (default 50)",
            schema = @Schema(type = SchemaType.INTEGER))
    @APIResponse(responseCode = "200", ref = "AgentThreads")
    @APIResponse(responseCode = "400", ref = "InvalidRequest")
    @APIResponse(responseCode = "404", ref = "AgentNotFound")
    public String threads(@PathParam("agentId") String agentId, @QueryParam("limit") String limit) {
        JsonArrayBuilder a = Json.createArrayBuilder();
        for (AgentThread t : agents.threads(caller.tenant(), agentId, threadLimit(limit))) {
            JsonObjectBuilder o =
                    Json.createObjectBuilder()
                            .add("threadId", t.threadId())
                            .add("createdAt", t.createdAt().toString())
                            .add("updatedAt", t.updatedAt().toString())
                            .add("turns", t.turns());
            if (!t.title().isEmpty()) {
                o.add("title", t.title());
            }
            a.add(o);
        }
        return a.build().toString();
    }

    private static int threadLimit(String limit) {
        if (limit == null) {
            return 50;
        }
        try {
            int n = Integer.parseInt(limit);
            if (n >= 1 && n <= 200) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ProblemException.invalidField("limit", "must be an integer from 1 to 200");
    }

    @GET
    @Path("{agentId}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "getAgent",
            summary =
                    "The agent definition; with ?threadId the thread's transcript {messages, activeRun, interrupts}; "
                            + "with ?runId (and ?offset=-1) the SSE of that run, as GET /agents/{agentId}/runs/{runId}/events",
            description =
                    "Transcript: the newest 50 runs of the agent in the thread, oldest first, as @tanstack/ai-client "
                            + "UIMessages (a user message per run, then the assistant message assembled from the run's log); "
                            + "at most 1 Mi characters in all, spent newest turn first. activeRun is the newest run that has not ended, else null; "
                            + "interrupts are its pending interrupts as AG-UI interrupts (null without an active run).")
    // Served by AgentRunEventsRewrite before this method is matched.
    @Parameter(
            name = "runId",
            in = ParameterIn.QUERY,
            description =
                    "A run of this agent: answers its events, as the runs/{runId}/events path",
            schema = @Schema(type = SchemaType.STRING))
    @Parameter(
            name = "offset",
            in = ParameterIn.QUERY,
            description = "With runId: the offset to resume after (-1 or none: from the start)",
            schema = @Schema(type = SchemaType.STRING))
    @APIResponse(responseCode = "200", ref = "AgentOrTranscript")
    @APIResponse(responseCode = "404", ref = "AgentNotFound")
    public String get(
            @PathParam("agentId") String agentId, @QueryParam("threadId") String threadId) {
        if (threadId != null) {
            return agents.thread(caller.tenant(), agentId, threadId).toString();
        }
        return agents.get(caller.tenant(), agentId).toJson().toString();
    }

    @DELETE
    @Path("{agentId}")
    @Operation(
            operationId = "deleteAgent",
            summary = "Delete the agent definition (its runs are kept); 204, unknown 404")
    @APIResponse(responseCode = "204", description = "Deleted")
    @APIResponse(responseCode = "400", ref = "InvalidRequest")
    @APIResponse(responseCode = "404", ref = "AgentNotFound")
    public Response delete(@PathParam("agentId") String agentId) {
        agents.delete(caller.tenant(), agentId);
        return Response.noContent().build();
    }

    @POST
    @Path("{agentId}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(
            operationId = "runAgent",
            summary =
                    "Run the agent on an AG-UI RunAgentInput and stream the run's AG-UI events; the same runId again resumes (Last-Event-ID) or replays",
            description =
                    "The prompt is the text of the last user message. The run is durable per the definition; its "
                            + "sandbox is the definition's, reused per threadId. forwardedProps.agentbox.secrets are the "
                            + "sandbox's secrets for this run (never stored). A repeated POST of a runId of this agent and "
                            + "thread starts no run: it streams that run after Last-Event-ID (from the start without it); "
                            + "another agent or thread gets 409 run-exists. Closing the stream detaches a durable run. "
                            + "tools are the client's own tools: a call ends the AG-UI run with RUN_FINISHED whose outcome "
                            + "is an interrupt (as does an ask approval); the thread's next input answers it (resume, or a "
                            + "tool message with its toolCallId) and streams the agent's continuation as the new run; an "
                            + "unanswered pending interrupt, an answer after expiry or a conflicting answer is a RUN_ERROR.")
    @RequestBody(ref = "RunAgentInput")
    @APIResponse(responseCode = "200", ref = "AgUiEvents")
    @APIResponse(responseCode = "404", ref = "AgentNotFound")
    @APIResponse(responseCode = "409", ref = "RunExists")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public void run(
            @PathParam("agentId") String agentId,
            @HeaderParam("Last-Event-ID") String lastEventId,
            JsonValue body,
            @Context SseEventSink sink,
            @Context Sse sse) {
        long after = RunsResource.offset(AgUiSegment.resumePoint(lastEventId));
        // The stream's slot first: a run must not start for a stream that is refused.
        Slot slot = quotas.acquire(caller.tenant(), Quota.STREAMS);
        try {
            AgentService.AgentRun run = agents.startOrResume(caller.tenant(), agentId, body);
            if (run.refusal().isPresent()) {
                RunEventsSse.refuse(
                        sink, sse, slot, run.refusal().get().code(), run.refusal().get().message());
                return;
            }
            // Last-Event-ID resumes a run an earlier POST started; a new run streams from its
            // start, whatever offset a confused client sends.
            stream(agentId, run, run.started() ? 0 : after, sink, sse, slot);
        } catch (RuntimeException e) {
            slot.close();
            throw e;
        }
    }

    @GET
    @Path("{agentId}/runs/{runId: .+}/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(
            operationId = "streamAgentRunEvents",
            summary =
                    "SSE of a run of this agent: replay from the start (?offset=-1 or none) or after ?offset / Last-Event-ID, then tail")
    @APIResponse(responseCode = "200", ref = "AgUiEvents")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public void events(
            @PathParam("agentId") String agentId,
            @PathParam("runId") String runId,
            @HeaderParam("Last-Event-ID") String lastEventId,
            @QueryParam("offset") String offset,
            @Context SseEventSink sink,
            @Context Sse sse) {
        long after =
                RunsResource.offset(
                        AgUiSegment.resumePoint(
                                lastEventId != null
                                        ? lastEventId
                                        : "-1".equals(offset) ? null : offset));
        AgentService.AgentRun run = agents.run(caller.tenant(), agentId, runId);
        Slot slot = quotas.acquire(caller.tenant(), Quota.STREAMS);
        try {
            stream(agentId, run, after, sink, sse, slot);
        } catch (RuntimeException e) {
            slot.close();
            throw e;
        }
    }

    /** Streams the AG-UI run: its segment of the base run's log, after {@code after}. */
    private void stream(
            String agentId,
            AgentService.AgentRun run,
            long after,
            SseEventSink sink,
            Sse sse,
            Slot slot) {
        String tenant = caller.tenant();
        RunRecordView base = run.run();
        AgUiSegment.Spec spec = run.segment();
        AgUiSegment segment =
                new AgUiSegment(
                        spec,
                        after,
                        seq ->
                                agents.snapshotMessages(
                                        tenant, agentId, spec.threadId(), base.runId(), seq));
        RunEventsSse.start(
                runs,
                threads,
                base,
                AgUiSegment.readAfter(spec, after),
                sink,
                sse,
                slot,
                RunEventsSse.Form.AG_UI,
                segment);
    }
}
