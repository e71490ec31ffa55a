package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The reaper on the IT server (its timer fires every 2 s there): the admin endpoints, their auth,
 * liveness, metrics, and journal pruning of real sandboxes.
 */
@PostgresPass
class ReaperIT {

    private static final List<String> OUTCOMES =
            List.of(
                    "finalized",
                    "expired",
                    "producing",
                    "unknown",
                    "budget-exceeded",
                    "not-claimed",
                    "reclaim-failed",
                    "failed");

    private final Api api = Api.itServer();

    private JsonObject status() {
        HttpResponse<String> r = api.get("/api/v1/admin/reaper", Api.ADMIN);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Api.object(r);
    }

    @Test
    void theTimerReallyFiresAndGetShowsTheLastSweepAndTheNextDueTime() {
        JsonObject first = status();
        assertThat(first.getBoolean("enabled")).isTrue();
        assertThat(first.getJsonNumber("intervalMs").longValue()).isEqualTo(2000);
        await().atMost(Duration.ofSeconds(20)).until(() -> status().containsKey("lastCompletedAt"));
        Instant seen = Instant.parse(status().getString("lastCompletedAt"));
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () ->
                                assertThat(Instant.parse(status().getString("lastCompletedAt")))
                                        .isAfter(seen));
        JsonObject later = status();
        assertThat(Instant.parse(later.getString("nextDueAt")))
                .isAfter(Instant.parse(later.getString("lastCompletedAt")).minusSeconds(3));
        assertThat(later.getJsonObject("last").getJsonObject("outcomes").keySet())
                .containsExactlyInAnyOrderElementsOf(OUTCOMES);
        assertThat(later.getBoolean("healthy")).isTrue();
    }

    @Test
    void aSweepOnRequestReturnsAllEightOutcomeKeys() {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/admin/reaper/sweep", Api.ADMIN)
                                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonObject result = Api.object(r);
        assertThat(result.getJsonObject("outcomes").keySet())
                .containsExactlyInAnyOrderElementsOf(OUTCOMES);
        assertThat(result.getInt("considered")).isGreaterThanOrEqualTo(0);
        assertThat(result.getInt("probed")).isLessThanOrEqualTo(result.getInt("considered"));
        assertThat(result.getJsonArray("runs")).isNotNull();
        assertThat(result.getJsonObject("orphans").getJsonArray("destroyed")).isNotNull();
    }

    @Test
    void adminEndpointsNeedTheAdminTenant() {
        assertProblem(
                api.send(
                        api.request("/api/v1/admin/reaper/sweep", Api.TENANT_A)
                                .POST(HttpRequest.BodyPublishers.noBody())),
                403,
                "forbidden");
        assertProblem(api.get("/api/v1/admin/reaper", Api.TENANT_A), 403, "forbidden");
        assertProblem(
                api.send(
                        api.request("/api/v1/admin/journals/prune", Api.TENANT_B)
                                .POST(HttpRequest.BodyPublishers.noBody())),
                403,
                "forbidden");
        assertThat(api.send(api.request("/api/v1/admin/reaper").GET()).statusCode()).isEqualTo(401);
    }

    @Test
    void livenessCarriesTheReaperCheckAndMetricsCountSweeps() {
        HttpResponse<String> live = api.send(api.request("/health/live").GET());
        assertThat(live.statusCode()).isEqualTo(200);
        JsonObject reaper = HealthIT.check(Api.object(live), "reaper");
        assertThat(reaper.getString("status")).isEqualTo("UP");
        assertThat(reaper.getJsonObject("data").getBoolean("enabled")).isTrue();
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () ->
                                assertThat(
                                                api.send(
                                                                api.request(
                                                                                "/metrics?scope=application")
                                                                        .GET())
                                                        .body())
                                        .contains("agentbox_reaper_sweeps_total"));
    }

    @Test
    void pruneDeletesJournalsOfTerminalRunsAndKeepsWhatItCannotProveDead() {
        try (Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A)) {
            Runs runs = new Runs(api, Api.TENANT_A);
            String key =
                    sandboxes
                            .ensure("{\"definitionId\":\"prune-" + UUID.randomUUID() + "\"}")
                            .getString("key");
            String done = "prune-done-" + UUID.randomUUID();
            runs.start(Runs.runBody(done, "{\"key\":\"" + key + "\"}", "echo finished", ""));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> runs.get(done).getString("status").equals("completed"));
            // The run's own path deleted its journal; leave one behind as a run that ended
            // unobserved would.
            String dir = JournalNames.DEFAULT_DIR;
            String stranger = "prune-unknown-" + UUID.randomUUID();
            sandboxes.exec(
                    key,
                    "mkdir -p "
                            + dir
                            + " && echo x > "
                            + dir
                            + "/"
                            + JournalNames.encode(done)
                            + ".ndjson"
                            + " && echo e > "
                            + dir
                            + "/"
                            + JournalNames.encode(done)
                            + ".err"
                            + " && echo y > "
                            + dir
                            + "/"
                            + JournalNames.encode(stranger)
                            + ".ndjson"
                            + " && echo z > '"
                            + dir
                            + "/not a journal.txt'");

            JsonObject first = prune();
            assertThat(first.getJsonArray("deleted").getValuesAs(JsonValue::toString))
                    .contains("\"" + done + "\"");
            assertThat(kept(first, stranger)).isEqualTo("orphan-too-recent");
            assertThat(kept(first, "not a journal.txt")).isEqualTo("undecodable-name");
            assertThat(sandboxes.stdout(key, "ls " + dir))
                    .doesNotContain(JournalNames.encode(done));

            JsonObject again = prune();
            assertThat(again.getJsonArray("deleted").getValuesAs(JsonValue::toString))
                    .doesNotContain("\"" + done + "\"");
            assertThat(kept(again, stranger)).isEqualTo("orphan-too-recent");
        }
    }

    private JsonObject prune() {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/admin/journals/prune", Api.ADMIN)
                                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Api.object(r);
    }

    private static String kept(JsonObject prune, String runId) {
        return prune.getJsonArray("kept").getValuesAs(JsonObject.class).stream()
                .filter(k -> k.getString("runId").equals(runId))
                .map(k -> k.getString("reason"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(runId + " not kept in " + prune));
    }
}
