package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The served OpenAPI document and the API reference ({@code docs/api.md}) describe the same
 * endpoints: every row of the reference's endpoint tables is an operation of the document, every
 * operation under {@code /api/v1} is in the reference, and every operation has a summary. The
 * document says what the service answers: its real success statuses, event streams as {@code
 * text/event-stream}, and its errors as the one {@code Problem} schema (docs/api.md, "OpenAPI
 * document"). {@link OpenApiClientIT} generates a client from it.
 */
class OpenApiIT {

    private static final Pattern ROW =
            Pattern.compile("^\\| (GET|POST|PUT|DELETE|PATCH) \\| `(/[^`?]*)[^`]*` \\|");
    private static final Pattern PROSE =
            Pattern.compile("`(GET|POST|PUT|DELETE|PATCH) (/[^`?\\s]*)[^`]*`");

    private static final String PROBLEM = "#/components/schemas/Problem";
    private static final Set<String> METHODS = Set.of("get", "post", "put", "delete", "patch");

    private final Api api = Api.itServer();

    private JsonObject document() {
        HttpResponse<String> r =
                api.send(api.request("/openapi?format=JSON").header("Accept", "application/json"));
        assertThat(r.statusCode()).isEqualTo(200);
        return Api.parse(r.body());
    }

    /** {@code METHOD /api/v1/path} of every operation the reference names. */
    private static Set<String> documented() throws IOException {
        Set<String> ops = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("docs/api.md"))) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                ops.add(row.group(1) + " /api/v1" + row.group(2));
            }
            Matcher prose = PROSE.matcher(line);
            while (prose.find()) {
                String path = prose.group(2);
                ops.add(
                        prose.group(1)
                                + " "
                                + (path.startsWith("/api/") ? path : "/api/v1" + path));
            }
        }
        return ops;
    }

    private static Set<String> served(JsonObject doc) {
        Set<String> ops = new TreeSet<>();
        for (var path : doc.getJsonObject("paths").entrySet()) {
            for (String method : path.getValue().asJsonObject().keySet()) {
                if (Set.of("get", "post", "put", "delete", "patch").contains(method)) {
                    ops.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            }
        }
        return ops;
    }

    @Test
    void everyEndpointOfTheReferenceIsInTheOpenApiDocumentAndViceVersa() throws IOException {
        Set<String> documented = documented();
        Set<String> served = served(document());

        assertThat(documented).as("rows found in docs/api.md").hasSizeGreaterThan(30);
        assertThat(served).containsAll(documented);
        assertThat(documented).containsAll(served);
    }

    private static JsonObject operation(JsonObject doc, String path, String method) {
        JsonObject op = doc.getJsonObject("paths").getJsonObject(path).getJsonObject(method);
        assertThat(op).as("%s %s", method, path).isNotNull();
        return op;
    }

    /** The response of {@code status}, its {@code $ref} to the shared responses followed. */
    private static JsonObject response(JsonObject doc, JsonObject op, String status) {
        JsonObject r = op.getJsonObject("responses").getJsonObject(status);
        if (r != null && r.containsKey("$ref")) {
            String ref = r.getString("$ref");
            assertThat(ref).startsWith("#/components/responses/");
            r =
                    doc.getJsonObject("components")
                            .getJsonObject("responses")
                            .getJsonObject(ref.substring(ref.lastIndexOf('/') + 1));
            assertThat(r).as("the response %s", ref).isNotNull();
        }
        return r;
    }

    private static Set<String> statuses(JsonObject op) {
        return new TreeSet<>(op.getJsonObject("responses").keySet());
    }

    private static Set<String> mediaTypes(JsonObject response) {
        return response.containsKey("content")
                ? response.getJsonObject("content").keySet()
                : Set.of();
    }

    @Test
    void successStatusesAreTheOnesTheServiceAnswers() {
        JsonObject doc = document();

        assertThat(statuses(operation(doc, "/api/v1/sandboxes", "post"))).contains("200", "201");
        assertThat(statuses(operation(doc, "/api/v1/sandboxes/{key}", "delete")))
                .contains("204")
                .doesNotContain("200");
        assertThat(statuses(operation(doc, "/api/v1/agents/{agentId}", "delete")))
                .contains("204")
                .doesNotContain("200");
        assertThat(statuses(operation(doc, "/api/v1/runs", "post")))
                .contains("202")
                .doesNotContain("201");
        assertThat(statuses(operation(doc, "/api/v1/runs/{runId}/cancel", "post"))).contains("202");
        assertThat(statuses(operation(doc, "/api/v1/sandboxes/{key}/processes", "post")))
                .contains("201");
        JsonObject ensured = response(doc, operation(doc, "/api/v1/sandboxes", "post"), "201");
        assertThat(
                        ensured.getJsonObject("content")
                                .getJsonObject("application/json")
                                .getJsonObject("schema")
                                .getString("$ref"))
                .isEqualTo("#/components/schemas/Sandbox");
    }

    @Test
    void eventStreamsAreTextEventStream() {
        JsonObject doc = document();
        List<String[]> streams =
                List.of(
                        new String[] {"/api/v1/runs/{runId}/events", "get"},
                        new String[] {"/api/v1/runs", "post"},
                        new String[] {"/api/v1/agents/{agentId}", "post"},
                        new String[] {"/api/v1/agents/{agentId}/runs/{runId}/events", "get"},
                        new String[] {"/api/v1/sandboxes/{key}/processes/{pid}/output", "get"},
                        new String[] {"/api/v1/sandboxes/{key}/file-events", "get"});
        for (String[] s : streams) {
            JsonObject op = operation(doc, s[0], s[1]);
            assertThat(statuses(op)).as("%s %s", s[1], s[0]).doesNotContain("204");
            assertThat(mediaTypes(response(doc, op, "200")))
                    .as("%s %s", s[1], s[0])
                    .contains("text/event-stream");
        }
    }

    @Test
    void everyOperationHasATagAnIdAndItsErrorsAsProblems() {
        JsonObject doc = document();
        Set<String> tags = new TreeSet<>();
        doc.getJsonArray("tags").forEach(t -> tags.add(t.asJsonObject().getString("name")));
        Set<String> ids = new TreeSet<>();
        List<String> wrong = new ArrayList<>();
        for (var path : doc.getJsonObject("paths").entrySet()) {
            for (var entry : path.getValue().asJsonObject().entrySet()) {
                if (!METHODS.contains(entry.getKey())) {
                    continue;
                }
                String name = entry.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
                JsonObject op = entry.getValue().asJsonObject();
                List<String> opTags =
                        op.containsKey("tags")
                                ? op.getJsonArray("tags").getValuesAs(JsonString.class).stream()
                                        .map(JsonString::getString)
                                        .toList()
                                : List.of();
                if (opTags.isEmpty() || !tags.containsAll(opTags)) {
                    wrong.add(name + ": no tag, or one the document does not list");
                }
                if (!ids.add(op.getString("operationId", name))) {
                    wrong.add(name + ": no operationId, or a repeated one");
                }
                List<String> errors =
                        statuses(op).stream().filter(s -> s.compareTo("400") >= 0).toList();
                if (errors.stream().noneMatch(s -> s.startsWith("4"))) {
                    wrong.add(name + ": no 4xx answer");
                }
                for (String status : errors) {
                    JsonObject content = response(doc, op, status).getJsonObject("content");
                    JsonObject problem =
                            content == null
                                    ? null
                                    : content.getJsonObject("application/problem+json");
                    if (problem == null
                            || !PROBLEM.equals(
                                    problem.getJsonObject("schema").getString("$ref", ""))) {
                        wrong.add(name + ": " + status + " is not the Problem schema");
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(ids).hasSizeGreaterThan(40);
        JsonObject problem =
                doc.getJsonObject("components").getJsonObject("schemas").getJsonObject("Problem");
        assertThat(problem.getJsonObject("properties").keySet())
                .contains(
                        "type", "title", "status", "detail", "instance", "code", "field", "quota");
    }

    @Test
    void everyOperationHasASummary() {
        JsonObject doc = document();
        List<String> missing = new ArrayList<>();
        for (var path : doc.getJsonObject("paths").entrySet()) {
            for (var op : path.getValue().asJsonObject().entrySet()) {
                if (op.getValue().getValueType() != JsonValue.ValueType.OBJECT) {
                    continue;
                }
                String summary = op.getValue().asJsonObject().getString("summary", "");
                if (summary.isBlank()) {
                    missing.add(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            }
        }
        assertThat(missing).as("operations without a summary").isEmpty();
    }
}
