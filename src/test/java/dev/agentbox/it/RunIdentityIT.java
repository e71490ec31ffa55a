package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run is (tenant, runId): the same runId in two tenants is two independent runs. Ids are bounded
 * and printable, and {@code maxDurationMs} bounds a run.
 */
@PostgresPass
class RunIdentityIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxesA = new Sandboxes(api, Api.TENANT_A);
    private final Sandboxes sandboxesB = new Sandboxes(api, Api.TENANT_B);

    @AfterEach
    void cleanUp() {
        sandboxesA.close();
        sandboxesB.close();
    }

    private static String agent(String who) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= 20; i++) {
            sb.append("echo '{\"delta\":\"")
                    .append(who)
                    .append('-')
                    .append(i)
                    .append("\"}'; sleep 0.05; ");
        }
        return sb.append("true").toString();
    }

    private static List<String> deltas(List<SseClient.Event> events) {
        List<String> out = new ArrayList<>();
        for (SseClient.Event e : events) {
            if (e.name().equals("TEXT_MESSAGE_CONTENT")) {
                out.add(Api.parse(e.data()).getString("delta"));
            }
        }
        return out;
    }

    @Test
    void theSameRunIdInTwoTenantsAtOnceIsTwoIndependentRunsWithExactTranscripts() throws Exception {
        String runId = "shared-" + UUID.randomUUID();
        String keyA =
                sandboxesA
                        .ensure("{\"definitionId\":\"ident-a-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        String keyB =
                sandboxesB
                        .ensure("{\"definitionId\":\"ident-b-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        Runs runsA = new Runs(api, Api.TENANT_A);
        Runs runsB = new Runs(api, Api.TENANT_B);

        runsA.start(Runs.runBody(runId, "{\"key\":\"" + keyA + "\"}", agent("alpha"), ""));
        runsB.start(Runs.runBody(runId, "{\"key\":\"" + keyB + "\"}", agent("beta"), ""));
        CompletableFuture<List<SseClient.Event>> a =
                CompletableFuture.supplyAsync(() -> runsA.transcript(runId, null));
        CompletableFuture<List<SseClient.Event>> b =
                CompletableFuture.supplyAsync(() -> runsB.transcript(runId, null));

        List<String> expectedA = new ArrayList<>();
        List<String> expectedB = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            expectedA.add("alpha-" + i);
            expectedB.add("beta-" + i);
        }
        assertThat(deltas(a.get())).containsExactlyElementsOf(expectedA);
        assertThat(deltas(b.get())).containsExactlyElementsOf(expectedB);
        assertThat(runsA.get(runId).getString("status")).isEqualTo("completed");
        assertThat(runsB.get(runId).getString("status")).isEqualTo("completed");
    }

    @Test
    void overlongOrUnprintableIdsAreRejectedUpFront() {
        String key =
                sandboxesA
                        .ensure("{\"definitionId\":\"ident-ids-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        Runs runs = new Runs(api, Api.TENANT_A);
        String sandbox = "{\"key\":\"" + key + "\"}";
        for (String runId :
                List.of(
                        "r".repeat(250),
                        "r".repeat(10_000),
                        "line\nbreak",
                        "cr\rforged",
                        "nul\u0000",
                        "tab\tid")) {
            HttpResponse<String> r = runs.startRaw(Runs.runBody(runId, sandbox, "true", ""));
            ProblemAssert.assertProblem(r, 400, "invalid-request");
            assertThat(Api.object(r).getString("field")).isEqualTo("runId");
        }
        HttpResponse<String> r =
                runs.startRaw(
                        "{\"runId\":\"ok-"
                                + UUID.randomUUID()
                                + "\",\"threadId\":"
                                + Runs.jsonString("t".repeat(201))
                                + ",\"sandbox\":"
                                + sandbox
                                + ",\"command\":\"true\"}");
        ProblemAssert.assertProblem(r, 400, "invalid-request");
        assertThat(Api.object(r).getString("field")).isEqualTo("threadId");
        for (String bad : List.of("-1", "\"3000\"", "1.5", "99999999999999999999999")) {
            HttpResponse<String> m =
                    runs.startRaw(
                            Runs.runBody(
                                    "md-" + UUID.randomUUID(),
                                    sandbox,
                                    "true",
                                    ",\"maxDurationMs\":" + bad));
            ProblemAssert.assertProblem(m, 400, "invalid-request");
        }
    }

    @Test
    void aTwoHundredCharacterRunIdRunsToItsEnd() {
        String key =
                sandboxesA
                        .ensure("{\"definitionId\":\"ident-200-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        Runs runs = new Runs(api, Api.TENANT_A);
        String runId = "x".repeat(163) + UUID.randomUUID() + "!";
        assertThat(runId).hasSize(200);
        runs.start(
                Runs.runBody(
                        runId, "{\"key\":\"" + key + "\"}", "echo '{\"delta\":\"long\"}'", ""));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(runs.get(runId).getString("status"))
                                        .isEqualTo("completed"));
        assertThat(deltas(runs.transcript(runId, null))).containsExactly("long");
    }

    @Test
    void aRunPastItsMaxDurationIsAbortedAndItsSandboxDestroyed() {
        String key =
                sandboxesA
                        .ensure("{\"definitionId\":\"ident-md-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        Runs runs = new Runs(api, Api.TENANT_A);
        String runId = "md-" + UUID.randomUUID();
        runs.start(
                Runs.runBody(
                        runId,
                        "{\"key\":\"" + key + "\"}",
                        "echo '{\"delta\":\"started\"}'; sleep 600",
                        ",\"maxDurationMs\":3000"));

        List<SseClient.Event> transcript = runs.transcript(runId, null);

        SseClient.Event last = transcript.get(transcript.size() - 1);
        assertThat(last.name()).isEqualTo("RUN_ERROR");
        assertThat(Api.parse(last.data()).getString("code")).isEqualTo("max-duration");
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("aborted");
        assertThat(record.getJsonObject("error").getString("code")).isEqualTo("max-duration");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () ->
                                assertThat(
                                                DockerCli.containersWithLabels(
                                                        "dev.agentbox.key=" + key))
                                        .isEmpty());
        sandboxesA.forget(key);
    }
}
