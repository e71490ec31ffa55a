package dev.agentbox.api;

import dev.agentbox.platform.LogText;
import dev.agentbox.reaper.PruneResult;
import dev.agentbox.reaper.ReaperService;
import dev.agentbox.reaper.SweepOutcome;
import dev.agentbox.reaper.SweepResult;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.logging.Logger;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Operator endpoints: the admin tenant only, enforced on the matched resource by {@link
 * AdminAuthorizationFilter} ({@link AdminOnly}). Every call that acts is logged with the calling
 * tenant, so an operator can see who swept or pruned.
 */
@Path("v1/admin")
@AdminOnly
@RequestScoped
@Tag(name = "admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {

    private static final Logger LOG = Logger.getLogger(AdminResource.class.getName());

    @Inject ReaperService reaper;

    @Inject Caller caller;

    @POST
    @Path("reaper/sweep")
    @Operation(
            operationId = "sweepReaper",
            summary =
                    "Run one reaper sweep now (waits for a sweep in flight) and return its result")
    @APIResponse(responseCode = "200", ref = "SweepResult")
    public JsonObject sweep() {
        LOG.info("admin: reaper sweep requested by tenant " + LogText.quote(caller.tenant()));
        return sweepJson(reaper.sweepNow());
    }

    @GET
    @Path("reaper")
    @Operation(
            operationId = "getReaperStatus",
            summary = "The last sweep's result and when the next one is due")
    @APIResponse(responseCode = "200", ref = "ReaperStatus")
    public JsonObject status() {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("enabled", reaper.enabled())
                        .add("intervalMs", reaper.intervalMs())
                        .add("healthy", reaper.fresh());
        reaper.nextDueAt().ifPresent(t -> b.add("nextDueAt", t.toString()));
        reaper.lastCompletedAt().ifPresent(t -> b.add("lastCompletedAt", t.toString()));
        reaper.last().ifPresentOrElse(r -> b.add("last", sweepJson(r)), () -> b.addNull("last"));
        return b.build();
    }

    @POST
    @Path("journals/prune")
    @Operation(
            operationId = "pruneJournals",
            summary =
                    "Delete journals of terminal runs in every sandbox (at most 200 per call); keep what cannot be proven dead")
    @APIResponse(responseCode = "200", ref = "PruneResult")
    public JsonObject prune() {
        LOG.info("admin: journal prune requested by tenant " + LogText.quote(caller.tenant()));
        PruneResult r = reaper.prune();
        JsonArrayBuilder kept = Json.createArrayBuilder();
        r.kept()
                .forEach(
                        k ->
                                kept.add(
                                        Json.createObjectBuilder()
                                                .add("runId", k.runId())
                                                .add("reason", k.reason())));
        return Json.createObjectBuilder()
                .add("deleted", Json.createArrayBuilder(r.deleted()))
                .add("kept", kept)
                .build();
    }

    private static JsonArrayBuilder unattended(SweepResult r) {
        JsonArrayBuilder a = Json.createArrayBuilder();
        r.unattended()
                .forEach(
                        u ->
                                a.add(
                                        Json.createObjectBuilder()
                                                .add("runId", u.runId())
                                                .add("action", u.action())));
        return a;
    }

    static JsonObject sweepJson(SweepResult r) {
        JsonObjectBuilder outcomes = Json.createObjectBuilder();
        for (SweepOutcome o : SweepOutcome.values()) {
            outcomes.add(o.wireName(), r.count(o));
        }
        JsonArrayBuilder runs = Json.createArrayBuilder();
        for (SweepResult.RunEntry e : r.runs()) {
            JsonObjectBuilder run =
                    Json.createObjectBuilder()
                            .add("runId", e.runId())
                            .add("outcome", e.outcome().wireName());
            e.status().ifPresent(s -> run.add("status", s));
            e.exitCode().ifPresent(c -> run.add("exitCode", c));
            e.error().ifPresent(m -> run.add("error", m));
            e.reclaim().ifPresent(c -> run.add("reclaim", c.wireName()));
            if (e.terminalizedAnyway()) {
                run.add("terminalizedAnyway", true);
            }
            runs.add(run);
        }
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("startedAt", r.startedAt().toString())
                        .add("durationMs", r.durationMs())
                        .add("considered", r.considered())
                        .add("probed", r.probed())
                        .add("outcomes", outcomes)
                        .add("runs", runs)
                        .add("unattended", unattended(r))
                        .add(
                                "orphans",
                                Json.createObjectBuilder()
                                        .add(
                                                "destroyed",
                                                Json.createArrayBuilder(r.orphans().destroyed()))
                                        .add(
                                                "failed",
                                                Json.createArrayBuilder(r.orphans().failed())));
        r.error().ifPresent(m -> b.add("error", m));
        return b.build();
    }
}
