package dev.agentbox.api;

import dev.agentbox.platform.body.JsonBody;
import dev.agentbox.platform.body.NoNul;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.GitStatus;
import dev.agentbox.sandbox.spi.SandboxGit;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Git in a sandbox's repository: status, pull, push. A pull or push authenticates with the
 * sandbox's {@code GIT_TOKEN} secret through the credential helper (never a URL, never {@code
 * .git/config}); a failure is {@code 409 git-failed} with git's message redacted of the sandbox's
 * secrets. Each request runs a command in the sandbox, so it holds one of the tenant's {@code
 * concurrent-execs} slots ({@link ExecQuota}), like an exec.
 */
@Path("v1/sandboxes/{key}/git")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@ExecQuota
@Tag(name = "git")
public class SandboxGitResource {

    /** Body of a pull or push: the repository's directory, or none for the workspace root. */
    public record Body(
            @NoNul @Pattern(regexp = "(?s).*\\S.*", message = "must not be blank") String dir) {}

    @Inject Caller caller;

    @Inject SandboxService sandboxes;

    @PathParam("key")
    String key;

    @GET
    @Path("status")
    @Operation(
            operationId = "getGitStatus",
            summary =
                    "The repository's branch, HEAD, upstream, ahead/behind and changed paths (dir defaults to the workspace root)")
    @APIResponse(responseCode = "200", ref = "GitStatus")
    @APIResponse(responseCode = "409", ref = "GitFailed")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public JsonObject status(@QueryParam("dir") String dir) {
        Optional<String> d = dir(dir);
        return view(git().statusOf(d));
    }

    @POST
    @Path("pull")
    @Consumes(MediaType.WILDCARD)
    @Operation(
            operationId = "gitPull",
            summary =
                    "Fast-forward the current branch to its upstream with the sandbox's git credentials; answers the status after")
    @RequestBody(ref = "GitDir")
    @APIResponse(responseCode = "200", ref = "GitStatus")
    @APIResponse(responseCode = "409", ref = "GitFailed")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public JsonObject pull(@Context HttpHeaders headers, byte[] body) {
        return thenStatus(headers, body, SandboxGit::pull);
    }

    @POST
    @Path("push")
    @Consumes(MediaType.WILDCARD)
    @Operation(
            operationId = "gitPush",
            summary =
                    "Push the current branch to its upstream (a new branch to origin) with the sandbox's git credentials; answers the status after")
    @RequestBody(ref = "GitDir")
    @APIResponse(responseCode = "200", ref = "GitStatus")
    @APIResponse(responseCode = "409", ref = "GitFailed")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public JsonObject push(@Context HttpHeaders headers, byte[] body) {
        return thenStatus(headers, body, SandboxGit::push);
    }

    /** Runs {@code operation} in the body's {@code dir} and answers the status after it. */
    private JsonObject thenStatus(
            HttpHeaders headers, byte[] body, BiConsumer<SandboxGit, Optional<String>> operation) {
        Optional<String> dir = dirOf(headers.getMediaType(), body);
        SandboxGit git = git();
        operation.accept(git, dir);
        return view(git.statusOf(dir));
    }

    private SandboxGit git() {
        return sandboxes.open(caller.tenant(), key).handle().git();
    }

    /**
     * The optional body {@code {"dir"?}}. No body at all (and no {@code Content-Type}, as a bare
     * {@code curl -X POST} sends it) is the workspace root; a body is JSON or {@code 415}.
     */
    static Optional<String> dirOf(MediaType type, byte[] body) {
        String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return Optional.empty();
        }
        if (type == null || !type.isCompatible(MediaType.APPLICATION_JSON_TYPE)) {
            throw new ProblemException(
                    ProblemCode.UNSUPPORTED_MEDIA_TYPE, "A body must be application/json.");
        }
        JsonValue json;
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            json = reader.readValue();
        }
        return Optional.ofNullable(JsonBody.read(json, Body.class).dir());
    }

    private static Optional<String> dir(String dir) {
        if (dir == null) {
            return Optional.empty();
        }
        if (dir.isBlank()) {
            throw ProblemException.invalidField("dir", "must not be blank");
        }
        if (dir.indexOf('\0') >= 0) {
            throw ProblemException.invalidField("dir", "must not contain NUL");
        }
        return Optional.of(dir);
    }

    /**
     * The wire shape (docs/api.md, "Git"): every member always present, {@code null} where git has
     * nothing (detached HEAD, no commit yet, no upstream).
     */
    static JsonObject view(GitStatus s) {
        JsonArrayBuilder entries = Json.createArrayBuilder();
        for (GitStatus.Entry e : s.entries()) {
            JsonObjectBuilder entry =
                    Json.createObjectBuilder()
                            .add("path", e.path())
                            .add("status", e.status())
                            .add("code", e.code())
                            .add("staged", e.staged());
            e.from().ifPresent(f -> entry.add("from", f));
            entries.add(entry);
        }
        return Json.createObjectBuilder()
                .add("branch", nullable(s.branch()))
                .add("commit", nullable(s.commit()))
                .add("upstream", nullable(s.upstream()))
                .add("ahead", s.ahead())
                .add("behind", s.behind())
                .add("clean", s.clean())
                .add("entries", entries)
                .build();
    }

    private static JsonValue nullable(Optional<String> value) {
        return value.<JsonValue>map(Json::createValue).orElse(JsonValue.NULL);
    }
}
