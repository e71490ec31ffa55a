package dev.agentbox.api;

import dev.agentbox.platform.body.JsonBody;
import dev.agentbox.platform.body.NoNul;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.SandboxFs;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.NotBlank;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The files of a sandbox. Relative paths resolve against {@code /workspace}; bytes are exact. Every
 * operation holds one of the tenant's {@code concurrent-execs} slots ({@link ExecQuota}).
 */
@Path("v1/sandboxes/{key}/files")
@RequestScoped
@ExecQuota
@Tag(name = "files")
public class SandboxFilesResource {

    @Inject Caller caller;

    @Inject SandboxService sandboxes;

    @PathParam("key")
    String key;

    @Inject
    @ConfigProperty(name = "agentbox.files.max-read-bytes")
    long maxReadBytes;

    /** Body of {@code POST files/mkdir}. */
    public record Mkdir(@NotBlank(message = "is required") @NoNul String path) {}

    /** Body of {@code POST files/move}. */
    public record Move(
            @NotBlank(message = "is required") @NoNul String from,
            @NotBlank(message = "is required") @NoNul String to) {}

    @Schema(name = "FileEntry")
    public record EntryView(String name, String path, String type) {}

    @Schema(name = "FileStat")
    public record StatView(String type, int mode, Long size) {}

    /**
     * Admitted first (missing → 404; device, FIFO, socket or over {@code
     * agentbox.files.max-read-bytes} → 413 file-too-large), then streamed: the server never holds
     * the file, and a client that goes away stops the reading command.
     */
    @GET
    @Produces(MediaType.APPLICATION_OCTET_STREAM)
    @Operation(operationId = "readFile", summary = "Read a file's bytes")
    @APIResponse(responseCode = "200", ref = "FileBytes")
    @APIResponse(responseCode = "413", ref = "FileTooLarge")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response read(@QueryParam("path") String path) {
        FileRead read = fs().openRead(required(path, "path"), maxReadBytes);
        StreamingOutput body = read::transferTo;
        return Response.ok(body, MediaType.APPLICATION_OCTET_STREAM_TYPE).build();
    }

    @PUT
    @Consumes(MediaType.WILDCARD)
    @Operation(
            operationId = "writeFile",
            summary = "Write a file (creates parent directories, replaces the content)")
    @RequestBody(ref = "FileContent")
    @APIResponse(responseCode = "204", description = "Written")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response write(@QueryParam("path") String path, byte[] body) {
        fs().write(required(path, "path"), body == null ? new byte[0] : body);
        return Response.noContent().build();
    }

    @DELETE
    @Operation(
            operationId = "deleteFile",
            summary = "Remove a file or directory recursively; a missing path is fine")
    @APIResponse(responseCode = "204", description = "Removed, or was not there")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response remove(@QueryParam("path") String path) {
        fs().remove(required(path, "path"));
        return Response.noContent().build();
    }

    @GET
    @Path("list")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "listFiles", summary = "List a directory (symlinks are not followed)")
    @APIResponse(responseCode = "200", ref = "FileEntries")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public List<EntryView> list(@QueryParam("path") String path) {
        return fs().list(path == null || path.isBlank() ? "." : noNul("path", path)).stream()
                .map(e -> new EntryView(e.name(), e.path(), e.type().wireName()))
                .toList();
    }

    @GET
    @Path("stat")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "statFile", summary = "A path's type, mode and size")
    @APIResponse(responseCode = "200", ref = "FileStat")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public StatView stat(@QueryParam("path") String path) {
        FsStat s =
                fs().lstat(required(path, "path"))
                        .orElseThrow(() -> ProblemException.notFound("No such file: " + path));
        return new StatView(
                s.type().wireName(), s.mode(), s.size().isPresent() ? s.size().getAsLong() : null);
    }

    @POST
    @Path("mkdir")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "makeDirectory",
            summary = "Create a directory and its parents (idempotent)")
    @RequestBody(ref = "Path")
    @APIResponse(responseCode = "204", description = "The directory exists")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response mkdir(JsonValue body) {
        fs().mkdir(JsonBody.read(body, Mkdir.class).path());
        return Response.noContent().build();
    }

    @POST
    @Path("move")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "moveFile", summary = "Move or rename a file or directory")
    @RequestBody(ref = "Move")
    @APIResponse(responseCode = "204", description = "Moved")
    @APIResponse(responseCode = "429", ref = "QuotaExceeded")
    public Response move(JsonValue body) {
        Move move = JsonBody.read(body, Move.class);
        fs().rename(move.from(), move.to());
        return Response.noContent().build();
    }

    private SandboxFs fs() {
        return sandboxes.open(caller.tenant(), key).handle().fs();
    }

    static String required(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new ProblemException(
                    ProblemCode.INVALID_REQUEST,
                    field + " is required",
                    Map.of("field", field),
                    null);
        }
        return noNul(field, value);
    }

    private static String noNul(String field, String value) {
        if (value.indexOf('\0') >= 0) {
            throw ProblemException.invalidField(field, "must not contain NUL");
        }
        return value;
    }
}
