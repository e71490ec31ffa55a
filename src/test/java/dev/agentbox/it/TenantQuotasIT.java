package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Per-tenant quotas against the real server and Docker. tenant-q (token-q) has small limits of its
 * own (pom.xml: 2 sandboxes, 1 concurrent run, 2 processes, 2 streams, 1 concurrent exec); tenant-b
 * works at the same moment to show that one tenant's limit is not another's. Each test also shows
 * the slot coming back when what held it ends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// The streams test runs last: a file-events stream the client closed keeps its slot until the
// server's next heartbeat (agentbox.sse.heartbeat-ms: 2 s on the IT server), which a later stream
// test of tenant-q would trip on.
@PostgresPass
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TenantQuotasIT {

    static final String TENANT_Q = "token-q";

    private final Api api = Api.itServer();
    private final Sandboxes q = new Sandboxes(api, TENANT_Q);
    private final Sandboxes b = new Sandboxes(api, Api.TENANT_B);
    private final Runs qRuns = new Runs(api, TENANT_Q);
    private final Runs bRuns = new Runs(api, Api.TENANT_B);
    private String sharedBody;
    private String qKey;
    private String bKey;

    @BeforeAll
    void ensure() {
        // On a loaded machine the server may answer before the application has started.
        eventually(
                Duration.ofMinutes(5),
                () -> api.get("/api/v1/sandboxes", TENANT_Q).statusCode() == 200);
        clearLeftovers();
        sharedBody = "{\"definitionId\":\"quota-" + UUID.randomUUID() + "\"}";
        qKey = q.ensure(sharedBody).getString("key");
        bKey =
                b.ensure("{\"definitionId\":\"quota-b-" + UUID.randomUUID() + "\"}")
                        .getString("key");
    }

    @AfterAll
    void cleanUp() {
        q.close();
        b.close();
    }

    /**
     * A failed earlier run of this class may have left tenant-q sandboxes or runs behind; they
     * would count.
     */
    private void clearLeftovers() {
        for (JsonValue v :
                Api.json(api.get("/api/v1/runs?status=running", TENANT_Q)).asJsonArray()) {
            qRuns.cancel(v.asJsonObject().getString("runId"));
        }
        eventually(
                Duration.ofSeconds(60),
                () ->
                        Api.json(api.get("/api/v1/runs?status=running", TENANT_Q))
                                .asJsonArray()
                                .isEmpty());
        for (JsonValue v : Api.json(api.get("/api/v1/sandboxes", TENANT_Q)).asJsonArray()) {
            q.delete(v.asJsonObject().getString("key"));
        }
    }

    @Test
    @Order(1)
    void
            aTenantAtItsSandboxLimitIsRefusedWhileResumingItsOwnAndAnotherTenantStillPassUntilADeleteFreesTheSlot() {
        String second =
                q.ensure("{\"definitionId\":\"quota-2-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        String thirdBody = "{\"definitionId\":\"quota-3-" + UUID.randomUUID() + "\"}";

        JsonObject refused = assertQuota(q.ensureRaw(thirdBody), "sandboxes", 2);
        assertThat(refused.getString("scope")).isEqualTo("cluster");
        assertQuota(
                api.send(
                        api.request("/api/v1/sandboxes/" + qKey + "/fork", TENANT_Q)
                                .POST(HttpRequest.BodyPublishers.noBody())),
                "sandboxes",
                2);
        // Ensuring an existing key resumes it: not a new sandbox, so not refused at the limit.
        HttpResponse<String> resumed = q.ensureRaw(sharedBody);
        assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
        assertThat(Api.object(resumed).getString("key")).isEqualTo(qKey);
        // Another tenant at the same moment: its own count.
        String other =
                b.ensure("{\"definitionId\":\"quota-b2-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        assertThat(b.delete(other).statusCode()).isEqualTo(204);
        b.forget(other);

        assertThat(q.delete(second).statusCode()).isEqualTo(204);
        q.forget(second);
        HttpResponse<String> third = q.ensureRaw(thirdBody);
        assertThat(third.statusCode()).as(third.body()).isEqualTo(201);
        String thirdKey = Api.object(third).getString("key");
        assertThat(q.delete(thirdKey).statusCode()).isEqualTo(204);
        q.forget(thirdKey);
    }

    @Test
    @Order(2)
    void aSecondConcurrentRunIsRefusedUntilTheFirstFinishesWhileAnotherTenantRuns() {
        String first = "quota-run-" + UUID.randomUUID();
        qRuns.start(Runs.runBody(first, ref(qKey), "sleep 5", ""));
        String second = "quota-run-" + UUID.randomUUID();
        HttpResponse<String> refused = qRuns.startRaw(Runs.runBody(second, ref(qKey), "true", ""));
        assertQuota(refused, "concurrent-runs", 1);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("10");
        assertThat(api.get(Runs.path(second), TENANT_Q).statusCode())
                .as("a refused run is not recorded")
                .isEqualTo(404);

        String bRun = "quota-run-b-" + UUID.randomUUID();
        bRuns.start(Runs.runBody(bRun, ref(bKey), "true", ""));

        eventually(Duration.ofSeconds(90), () -> terminal(qRuns.get(first)));
        qRuns.start(Runs.runBody(second, ref(qKey), "true", ""));
        eventually(Duration.ofSeconds(90), () -> terminal(qRuns.get(second)));
        eventually(Duration.ofSeconds(90), () -> terminal(bRuns.get(bRun)));
    }

    @Test
    @Order(3)
    void backgroundProcessesStopAtTheLimitAndAKillFreesASlot() {
        List<String> pids = new ArrayList<>();
        pids.add(spawn(TENANT_Q, qKey, "sleep 600"));
        pids.add(spawn(TENANT_Q, qKey, "sleep 600"));
        HttpResponse<String> refused = spawnRaw(TENANT_Q, qKey, "sleep 600");
        assertThat(assertQuota(refused, "processes", 2).getString("scope")).isEqualTo("server");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("5");

        String bPid = spawn(Api.TENANT_B, bKey, "sleep 600");
        kill(Api.TENANT_B, bKey, bPid);

        kill(TENANT_Q, qKey, pids.remove(0));
        String[] replacement = new String[1];
        eventually(
                Duration.ofSeconds(30),
                () -> {
                    HttpResponse<String> r = spawnRaw(TENANT_Q, qKey, "sleep 600");
                    if (r.statusCode() == 201) {
                        replacement[0] = Api.object(r).getString("pid");
                        return true;
                    }
                    assertQuota(r, "processes", 2);
                    return false;
                });
        pids.add(replacement[0]);
        pids.forEach(pid -> kill(TENANT_Q, qKey, pid));
    }

    @Test
    @Order(6)
    void openStreamsOfEveryKindStopAtTheLimitAndClosingOneAdmitsTheNext() {
        String pid = spawn(TENANT_Q, qKey, "echo ready; sleep 600");
        SseClient processOutput =
                SseClient.open(
                        api.request(
                                "/api/v1/sandboxes/" + qKey + "/processes/" + pid + "/output",
                                TENANT_Q));
        assertThat(processOutput.status()).isEqualTo(200);
        assertThat(processOutput.next(Duration.ofSeconds(30)).data()).isEqualTo("ready");
        SseClient fileEvents = fileEvents(TENANT_Q, qKey);
        assertThat(fileEvents.status()).isEqualTo(200);

        HttpResponse<String> refused =
                api.send(
                        api.request("/api/v1/sandboxes/" + qKey + "/file-events", TENANT_Q)
                                .header("Accept", "text/event-stream")
                                .GET());
        assertThat(assertQuota(refused, "streams", 2).getString("scope")).isEqualTo("server");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("5");
        String streamedRun = "quota-stream-" + UUID.randomUUID();
        HttpResponse<String> streamedStart =
                api.send(
                        api.request("/api/v1/runs", TENANT_Q)
                                .header("Content-Type", "application/json")
                                .header("Accept", "text/event-stream")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                Runs.runBody(streamedRun, ref(qKey), "true", ""))));
        assertQuota(streamedStart, "streams", 2);
        assertThat(api.get(Runs.path(streamedRun), TENANT_Q).statusCode())
                .as("no run starts for a refused stream")
                .isEqualTo(404);

        try (SseClient other = fileEvents(Api.TENANT_B, bKey)) {
            assertThat(other.status()).as("another tenant at the same moment").isEqualTo(200);
        }

        // A client that disconnects: the server notices on its next heartbeat and frees the slot.
        fileEvents.close();
        SseClient[] next = new SseClient[1];
        eventually(
                Duration.ofSeconds(60),
                () -> {
                    SseClient s = fileEvents(TENANT_Q, qKey);
                    if (s.status() == 200) {
                        next[0] = s;
                        return true;
                    }
                    s.close();
                    return false;
                });
        assertThat(
                        api.send(
                                        api.request(
                                                        "/api/v1/sandboxes/"
                                                                + qKey
                                                                + "/file-events",
                                                        TENANT_Q)
                                                .header("Accept", "text/event-stream")
                                                .GET())
                                .statusCode())
                .isEqualTo(429);

        // A stream that ends on its own (the process exits): the slot is free at once.
        kill(TENANT_Q, qKey, pid);
        assertThat(Runs.drain(processOutput, Duration.ofSeconds(30)))
                .extracting(SseClient.Event::name)
                .contains("exit");
        processOutput.close();
        eventually(
                Duration.ofSeconds(10),
                () -> {
                    try (SseClient s = fileEvents(TENANT_Q, qKey)) {
                        return s.status() == 200;
                    }
                });
        next[0].close();
    }

    @Test
    @Order(5)
    void runEventStreamsCountAndFreeTheirSlotWhenTheClientLeavesOrTheRunEnds() {
        String runId = "quota-events-" + UUID.randomUUID();
        qRuns.start(Runs.runBody(runId, ref(qKey), "sleep 12", ""));
        List<SseClient> open = new ArrayList<>();
        try {
            SseClient first = opened(open, qRuns.events(runId, null));
            SseClient second = opened(open, qRuns.events(runId, null));
            assertThat(first.status()).isEqualTo(200);
            assertThat(second.status()).isEqualTo(200);
            assertThat(first.next(Duration.ofSeconds(30)))
                    .as("the stream delivers the run's log")
                    .isNotNull();
            HttpResponse<String> refused =
                    api.send(
                            api.request(Runs.path(runId) + "/events", TENANT_Q)
                                    .header("Accept", "text/event-stream")
                                    .GET());
            assertQuota(refused, "streams", 2);

            // The run stream's heartbeat (every second) notices the closed connection.
            first.close();
            SseClient[] third = new SseClient[1];
            eventually(
                    Duration.ofSeconds(30),
                    () -> {
                        SseClient s = qRuns.events(runId, null);
                        if (s.status() == 200) {
                            third[0] = opened(open, s);
                            return true;
                        }
                        s.close();
                        return false;
                    });
            // Both streams end with the run; their slots are free without the client doing
            // anything.
            assertThat(Runs.drain(second, Duration.ofSeconds(90)))
                    .extracting(SseClient.Event::name)
                    .last()
                    .isIn("RUN_FINISHED", "RUN_ERROR");
            Runs.drain(third[0], Duration.ofSeconds(30));
            // A server releases a stream's slot before it ends the stream: a client that saw the
            // end
            // can open the next one at once (the streams test, which runs next, opens two).
            assertThat(qRuns.transcript(runId, null)).isNotEmpty();
        } finally {
            open.forEach(SseClient::close);
            eventually(Duration.ofSeconds(60), () -> terminal(qRuns.get(runId)));
        }
    }

    @Test
    @Order(4)
    void aSecondExecOrFileOperationInFlightIsRefusedUntilTheFirstReturns() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
        slow.add(CompletableFuture.supplyAsync(() -> q.execRaw(qKey, "sleep 15; echo done")));
        eventually(
                Duration.ofSeconds(30),
                () -> {
                    if (slow.get(0).isDone() && slow.get(0).join().statusCode() == 429) {
                        // This probe held the only slot when the slow exec arrived: start it again.
                        slow.set(
                                0,
                                CompletableFuture.supplyAsync(
                                        () -> q.execRaw(qKey, "sleep 15; echo done")));
                    }
                    return q.execRaw(qKey, "true").statusCode() == 429;
                });
        HttpResponse<String> refused = q.execRaw(qKey, "true");
        assertQuota(refused, "concurrent-execs", 1);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertQuota(
                api.get("/api/v1/sandboxes/" + qKey + "/files/list?path=.", TENANT_Q),
                "concurrent-execs",
                1);
        assertThat(b.execRaw(bKey, "true").statusCode())
                .as("another tenant at the same moment")
                .isEqualTo(200);

        HttpResponse<String> done = slow.get(0).get();
        assertThat(done.statusCode()).isEqualTo(200);
        assertThat(Api.object(done).getString("stdout")).isEqualTo("done\n");
        assertThat(q.execRaw(qKey, "true").statusCode()).isEqualTo(200);
        assertThat(
                        api.get("/api/v1/sandboxes/" + qKey + "/files/list?path=.", TENANT_Q)
                                .statusCode())
                .isEqualTo(200);
        // A failing operation releases its slot too.
        assertThat(
                        api.get("/api/v1/sandboxes/" + qKey + "/files?path=missing", TENANT_Q)
                                .statusCode())
                .isEqualTo(404);
        assertThat(q.execRaw(qKey, "true").statusCode()).isEqualTo(200);
    }

    private static SseClient opened(List<SseClient> open, SseClient stream) {
        open.add(stream);
        return stream;
    }

    private static JsonObject assertQuota(HttpResponse<String> response, String quota, int limit) {
        JsonObject problem = assertProblem(response, 429, "quota-exceeded");
        assertThat(problem.getString("quota")).isEqualTo(quota);
        assertThat(problem.getInt("limit")).isEqualTo(limit);
        return problem;
    }

    private SseClient fileEvents(String token, String key) {
        return SseClient.open(api.request("/api/v1/sandboxes/" + key + "/file-events", token));
    }

    private HttpResponse<String> spawnRaw(String token, String key, String command) {
        return api.send(
                api.request("/api/v1/sandboxes/" + key + "/processes", token)
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        "{\"command\":" + Runs.jsonString(command) + "}")));
    }

    private String spawn(String token, String key, String command) {
        HttpResponse<String> r = spawnRaw(token, key, command);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return Api.object(r).getString("pid");
    }

    private void kill(String token, String key, String pid) {
        assertThat(
                        api.send(
                                        api.request(
                                                        "/api/v1/sandboxes/"
                                                                + key
                                                                + "/processes/"
                                                                + pid,
                                                        token)
                                                .DELETE())
                                .statusCode())
                .isEqualTo(204);
    }

    private static String ref(String key) {
        return "{\"key\":\"" + key + "\"}";
    }

    private static boolean terminal(JsonObject run) {
        return List.of("completed", "failed", "aborted").contains(run.getString("status"));
    }

    private static void eventually(Duration timeout, Supplier<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout);
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
