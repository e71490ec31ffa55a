package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code GET /runs/{id}/log?after=&limit=}: a log is read in bounded pages, {@code after} exclusive
 * like {@code Last-Event-ID}; no request can ask for an unbounded page.
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunLogPagingIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private String runId;

    @BeforeAll
    void aFinishedRunWithSomeFortyChunks() {
        String key =
                sandboxes
                        .ensure("{\"definitionId\":\"logpage-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        runId = "logpage-" + UUID.randomUUID();
        runs.start(
                Runs.runBody(
                        runId,
                        "{\"key\":\"" + key + "\"}",
                        "for i in $(seq 1 30); do printf '{\"delta\":\"%s\"}\\n' $i; done",
                        ""));
        runs.transcript(runId, null);
    }

    @AfterAll
    void cleanUp() {
        sandboxes.close();
    }

    private JsonArray page(String query) {
        return Api.json(api.get(Runs.path(runId) + "/log" + query, Api.TENANT_A)).asJsonArray();
    }

    @Test
    void pagesOfSevenConcatenateToTheWholeLogWithoutGapOrDuplicate() {
        JsonArray whole = page("");
        assertThat(whole.size()).isGreaterThan(30);
        List<String> paged = new ArrayList<>();
        String after = null;
        while (true) {
            JsonArray p = page("?limit=7" + (after == null ? "" : "&after=" + after));
            assertThat(p.size()).isLessThanOrEqualTo(7);
            if (p.isEmpty()) {
                break;
            }
            p.forEach(v -> paged.add(v.asJsonObject().getString("offset")));
            after = p.getJsonObject(p.size() - 1).getString("offset");
        }
        assertThat(paged)
                .containsExactlyElementsOf(
                        whole.stream().map(v -> v.asJsonObject().getString("offset")).toList());
        JsonObject last = whole.getJsonObject(whole.size() - 1);
        assertThat(last.getJsonObject("chunk").getString("type")).isEqualTo("RUN_FINISHED");
        assertThat(page("?after=" + last.getString("offset")))
                .as("after the last offset: nothing")
                .isEmpty();
    }

    @Test
    void afterIsExclusive() {
        JsonArray whole = page("");
        String third = whole.getJsonObject(2).getString("offset");
        JsonArray rest = page("?after=" + third + "&limit=2");
        assertThat(rest).hasSize(2);
        assertThat(rest.getJsonObject(0).getString("offset"))
                .isEqualTo(whole.getJsonObject(3).getString("offset"));
        assertThat(rest.getJsonObject(0).getJsonObject("chunk"))
                .isEqualTo(whole.getJsonObject(3).getJsonObject("chunk"));
    }

    @Test
    void aLimitOutOfRangeOrNotANumberIsABadRequestNamingIt() {
        for (String limit : List.of("0", "-1", "1001", "many", "1e3")) {
            JsonObject p =
                    assertProblem(
                            api.get(Runs.path(runId) + "/log?limit=" + limit, Api.TENANT_A),
                            400,
                            "invalid-request");
            assertThat(p.getString("field")).isEqualTo("limit");
        }
        JsonObject p =
                assertProblem(
                        api.get(Runs.path(runId) + "/log?after=x", Api.TENANT_A),
                        400,
                        "invalid-request");
        assertThat(p.getString("field")).isEqualTo("after");
    }

    @Test
    void anotherTenantsLogIsNotFound() {
        assertProblem(api.get(Runs.path(runId) + "/log?limit=5", Api.TENANT_B), 404, "not-found");
    }
}
