package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The served OpenAPI document is one a client generator can trust: {@code
 * src/test/node/openapi-client.mjs} fetches {@code /openapi} from this server, lints it with
 * Redocly ({@code src/test/node/redocly.yaml}: zero errors), generates TypeScript types from it
 * with openapi-typescript, type-checks {@code openapi-drive.mjs} against them (and a misuse that
 * must not type-check), and then drives a sandbox and a run through openapi-fetch with those types:
 * ensure (201), exec, a refused body and an unknown run as typed problems, a {@code command}
 * agent's run to {@code completed}, delete (204); each answer checked must conform to its schema in
 * the document (Ajv). The document's own facts are {@link OpenApiIT}.
 */
class OpenApiClientIT {

    /** What the drive must have checked; a step it stopped doing fails here. */
    static final List<String> STEPS =
            List.of(
                    "ensure answers 201 with the created sandbox",
                    "exec answers the command's output",
                    "a refused body is a typed problem naming its field",
                    "a run starts: 202 with its events path",
                    "the run's status reaches completed",
                    "the run's log holds what the agent printed",
                    "an unknown run is a typed 404 problem",
                    "delete answers 204");

    private final Api api = Api.itServer();
    private final NodeScripts node = new NodeScripts();
    private final String thread = "t-openapi-" + UUID.randomUUID();

    @BeforeEach
    void requireTheGenerators() {
        node.requireInstalled(
                List.of(
                        "@redocly/openapi-core",
                        "openapi-typescript",
                        "openapi-fetch",
                        "typescript",
                        "ajv"));
    }

    /** What a failed script left behind: its run (in {@link #thread}) and the run's sandbox. */
    @AfterEach
    void cleanUp() {
        Runs runs = new Runs(api, Api.TENANT_A);
        for (JsonObject run :
                Api.json(api.get("/api/v1/runs?threadId=" + thread, Api.TENANT_A))
                        .asJsonArray()
                        .getValuesAs(JsonObject.class)) {
            runs.cancel(run.getString("runId"));
            if (run.containsKey("sandboxKey")) {
                api.send(
                        api.request(
                                        "/api/v1/sandboxes/" + run.getString("sandboxKey"),
                                        Api.TENANT_A)
                                .DELETE());
            }
        }
    }

    @Test
    void aClientGeneratedFromTheDocumentDrivesASandboxAndARun() {
        JsonObject options =
                Json.createObjectBuilder()
                        .add("baseUrl", api.baseUrl())
                        .add("token", Api.TENANT_A)
                        .add("thread", thread)
                        .add("runId", "r-openapi-" + UUID.randomUUID())
                        .add("definitionId", "openapi-client-" + UUID.randomUUID())
                        .build();

        NodeScripts.Result r = node.run("openapi-client.mjs", options, Duration.ofMinutes(5));

        JsonObject out = r.json();
        assertThat(out.containsKey("error")).as("the script failed: %s", out).isFalse();
        assertThat(strings(out.getJsonObject("lint"), "errors"))
                .as("Redocly lint errors of /openapi")
                .isEmpty();
        assertThat(strings(out.getJsonObject("typecheck"), "drive"))
                .as("openapi-drive.mjs against the generated types")
                .isEmpty();
        // The types constrain calls: an exec body without command, and a member the run record
        // does not have, fail the check.
        assertThat(String.join("\n", strings(out.getJsonObject("typecheck"), "misuse")))
                .contains("'command' is missing")
                .contains("'notAMember' does not exist");
        List<JsonObject> checks = out.getJsonArray("checks").getValuesAs(JsonObject.class);
        assertThat(checks).extracting(c -> c.getString("name")).containsExactlyElementsOf(STEPS);
        assertThat(checks.stream().filter(c -> !c.getBoolean("ok")).toList())
                .as("failed steps")
                .isEmpty();
        assertThat(r.exitCode()).as("openapi-client.mjs exit code; it printed %s", out).isZero();
    }

    private static List<String> strings(JsonObject o, String member) {
        return o.getJsonArray(member).getValuesAs(JsonString.class).stream()
                .map(JsonString::getString)
                .toList();
    }
}
