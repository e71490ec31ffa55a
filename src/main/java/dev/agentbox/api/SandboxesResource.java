package dev.agentbox.api;

import dev.agentbox.platform.PageCursor;
import dev.agentbox.platform.body.JsonBody;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Slot;
import dev.agentbox.sandbox.EnsureOutcome;
import dev.agentbox.sandbox.Ensured;
import dev.agentbox.sandbox.Sandbox;
import dev.agentbox.sandbox.SandboxProviders;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import dev.agentbox.sandbox.store.SandboxInstance;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Sandboxes of the caller's tenant: ensure, list, get, delete, exec, snapshot, fork, ports. */
@Path("v1/sandboxes")
@RequestScoped
@Tag(name = "sandboxes")
@Produces(MediaType.APPLICATION_JSON)
public class SandboxesResource {

    @Inject Caller caller;

    @Inject SandboxService sandboxes;

    @Inject SandboxProviders providers;

    @Inject HeldExecSlot heldSlot;

    @Inject ExecWorkers execWorkers;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "ensureSandbox",
            summary =
                    "Ensure a sandbox: resume the running one of this key, restore its snapshot, or create and bootstrap it")
    @RequestBody(ref = "SandboxEnsure")
    @APIResponse(responseCode = "200", ref = "SandboxResumed")
    @APIResponse(responseCode = "201", ref = "SandboxCreated")
    @APIResponse(responseCode = "422", ref = "SetupFailed")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    @APIResponse(responseCode = "503", ref = "ProviderUnavailable")
    public Response ensure(JsonValue body) {
        if (body == null) {
            throw ProblemException.invalidRequest("body a JSON object is required");
        }
        Ensured ensured = sandboxes.ensure(caller.tenant(), sandboxes.specParser().parse(body));
        Sandbox s = ensured.sandbox();
        SandboxView view =
                SandboxView.of(
                        s.instance(), s.handle().capabilities(), ensured.outcome().wireName());
        return Response.status(ensured.outcome() == EnsureOutcome.CREATED ? 201 : 200)
                .entity(view)
                .build();
    }

    @GET
    @Operation(
            operationId = "listSandboxes",
            summary =
                    "The caller's sandboxes, oldest first; pages of ?limit (1-200, default 200), the next page by the Link rel=\"next\" header (its ?cursor)")
    @APIResponse(responseCode = "200", ref = "SandboxPage")
    public Response list(
            @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor,
            @Context UriInfo uri) {
        Paging paging = Paging.of(limit, cursor);
        List<SandboxInstance> fetched =
                sandboxes.list(caller.tenant(), paging.after(), paging.fetch());
        List<SandboxView> page =
                paging.page(fetched).stream()
                        .map(i -> SandboxView.of(i, capabilities(i), null))
                        .toList();
        return paging.linkNext(
                        Response.ok(page),
                        fetched,
                        i -> new PageCursor(i.createdAt(), i.key()),
                        uri)
                .build();
    }

    @GET
    @Path("{key}")
    @Operation(operationId = "getSandbox", summary = "One sandbox of the caller")
    @APIResponse(responseCode = "200", ref = "Sandbox")
    public SandboxView get(@PathParam("key") String key) {
        SandboxInstance i = sandboxes.find(caller.tenant(), key);
        return SandboxView.of(i, capabilities(i), null);
    }

    @DELETE
    @Path("{key}")
    @Operation(operationId = "deleteSandbox", summary = "Destroy the sandbox and delete its record")
    @APIResponse(responseCode = "204", description = "Destroyed; a second delete is 404")
    public Response delete(@PathParam("key") String key) {
        sandboxes.delete(caller.tenant(), key);
        return Response.noContent().build();
    }

    @POST
    @Path("{key}/exec")
    @Consumes(MediaType.APPLICATION_JSON)
    @ExecQuota
    @Operation(
            operationId = "execInSandbox",
            summary =
                    "Run a command to completion; a non-zero exit is data. A command still running after 1.5 s is answered 200 with leading whitespace until its result (or a problem document) follows; a client that leaves gets its command killed")
    @RequestBody(ref = "Exec")
    @APIResponse(responseCode = "200", ref = "ExecResult")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    @APIResponse(responseCode = "503", ref = "ProviderUnavailable")
    public Response exec(@PathParam("key") String key, JsonValue body) {
        ExecRequest request = ExecRequest.parse(body);
        ProcessOptions options = request.options(true);
        Sandbox s = sandboxes.open(caller.tenant(), key);
        return DisconnectAwareExec.run(
                execWorkers.executor(),
                () -> s.handle().process().exec(request.command(), options),
                () -> heldSlot.take().orElse(Slot.NONE));
    }

    /**
     * Sets or removes environment variables ({@code env}, recorded with the sandbox) and secrets
     * ({@code secrets}, only in the sandbox's tmpfs secrets file) for every later command of the
     * sandbox, through any server. A {@code null} value removes the variable or secret. See {@link
     * SandboxService#patchEnv}.
     */
    @PATCH
    @Path("{key}/env")
    @Consumes(MediaType.APPLICATION_JSON)
    @ExecQuota
    @Operation(
            operationId = "patchSandboxEnv",
            summary =
                    "Set or remove environment variables and secrets for later commands of the sandbox (null removes); the key does not change")
    @RequestBody(ref = "EnvPatch")
    @APIResponse(responseCode = "204", description = "Later commands see the change")
    @APIResponse(responseCode = "422", ref = "UnsupportedCapability")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    @APIResponse(responseCode = "503", ref = "ProviderUnavailable")
    public Response patchEnv(@PathParam("key") String key, JsonValue body) {
        if (body == null) {
            throw ProblemException.invalidField("body", "must be a JSON object");
        }
        EnvPatch patch = JsonBody.read(body, EnvPatch.class);
        Map<String, Optional<String>> env = EnvPatch.changes(patch.env());
        Map<String, Optional<String>> secrets = EnvPatch.changes(patch.secrets());
        if (env.isEmpty() && secrets.isEmpty()) {
            throw ProblemException.invalidField(
                    "env", "or secrets must name at least one variable");
        }
        SandboxInstance instance = sandboxes.find(caller.tenant(), key);
        SandboxCapabilities caps = capabilities(instance);
        if (caps != null && !caps.env()) {
            throw new UnsupportedCapabilityException(
                    instance.provider(), SandboxCapabilities.Capability.ENV);
        }
        sandboxes.patchEnv(caller.tenant(), key, env, secrets);
        return Response.noContent().build();
    }

    @POST
    @Path("{key}/snapshots")
    @Operation(
            operationId = "snapshotSandbox",
            summary = "Capture the sandbox's filesystem as a snapshot")
    @APIResponse(responseCode = "201", ref = "Snapshot")
    @APIResponse(responseCode = "422", ref = "UnsupportedCapability")
    public Response snapshot(@PathParam("key") String key) {
        String id = sandboxes.snapshot(caller.tenant(), key);
        return Response.status(201).entity(Map.of("snapshotId", id)).build();
    }

    @POST
    @Path("{key}/fork")
    @Operation(
            operationId = "forkSandbox",
            summary = "A new sandbox branched from this one's current state")
    @APIResponse(responseCode = "201", ref = "SandboxCreated")
    @APIResponse(responseCode = "422", ref = "UnsupportedCapability")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response fork(@PathParam("key") String key) {
        Ensured forked = sandboxes.fork(caller.tenant(), key);
        Sandbox s = forked.sandbox();
        return Response.status(201)
                .entity(
                        SandboxView.of(
                                s.instance(),
                                s.handle().capabilities(),
                                forked.outcome().wireName()))
                .build();
    }

    /**
     * Where the caller reaches a port of the sandbox. A port the provider publishes (declared in
     * {@code policy.ports} on a bridge sandbox, or any port of a local sandbox) keeps its direct
     * host URL; every other port answers the port proxy's URL, which takes the caller's bearer
     * token like the rest of the API. The token is never echoed back: {@code proxied} tells the
     * caller whether to send it. Nothing needs to listen yet.
     */
    @GET
    @Path("{key}/ports/{port}")
    @Operation(
            operationId = "getSandboxPort",
            summary =
                    "Where to reach a port of the sandbox: its published host URL, or agentbox's authenticated proxy for any port it opens")
    @APIResponse(responseCode = "200", ref = "PortAccess")
    @APIResponse(responseCode = "400", ref = "InvalidRequest")
    @APIResponse(responseCode = "422", ref = "UnsupportedCapability")
    public Map<String, Object> port(
            @PathParam("key") String key, @PathParam("port") int port, @Context UriInfo uri) {
        SandboxPorts ports = sandboxes.open(caller.tenant(), key).handle().ports();
        Optional<SandboxPorts.Channel> published = ports.published(port);
        if (published.isPresent()) {
            return Map.of(
                    "url", published.get().url(),
                    "headers", published.get().headers(),
                    "proxied", false);
        }
        ports.address(port); // a sandbox without a network address is refused here, not later
        String url =
                uri.getBaseUriBuilder()
                        .path("v1/sandboxes")
                        .path(key)
                        .path("ports")
                        .path(Integer.toString(port))
                        .path("proxy/")
                        .build()
                        .toString();
        return Map.of("url", url, "headers", Map.of(), "proxied", true);
    }

    private SandboxCapabilities capabilities(SandboxInstance i) {
        return providers.find(i.provider()).map(p -> p.capabilities()).orElse(null);
    }
}
