package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Faults, cancel and detach: every way a run ends is a clear terminal state, and a disconnect is
 * never a cancel.
 */
@PostgresPass
class RunLifecycleIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    private JsonObject sandbox() {
        return sandboxes.ensure("{\"definitionId\":\"lifecycle-" + UUID.randomUUID() + "\"}");
    }

    private static String newRunId() {
        return "r-" + UUID.randomUUID();
    }

    private static String ref(JsonObject sandbox) {
        return "{\"key\":\"" + sandbox.getString("key") + "\"}";
    }

    /** RD-03: a container killed mid-run fails the run, no 5xx, the server stays healthy. */
    @Test
    void aContainerKilledMidRunFailsTheRunAndClosesTheStream() {
        JsonObject s = sandbox();
        String runId = newRunId();
        runs.start(Runs.runBody(runId, ref(s), "echo started; sleep 120", ""));
        try (SseClient sse = runs.events(runId, null)) {
            SseClient.Event e;
            do {
                e = sse.next(Duration.ofSeconds(30));
            } while (e != null && !e.data().contains("started"));
            DockerCli.ok("kill", s.getString("providerSandboxId"));
            List<SseClient.Event> rest = Runs.drain(sse, Duration.ofSeconds(60));
            assertThat(rest).isNotEmpty();
            assertThat(rest.get(rest.size() - 1).name()).isEqualTo("RUN_ERROR");
        }
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("failed");
        assertThat(record.getJsonObject("error").getString("code")).isEqualTo("agent-lost");
        assertThat(api.send(api.request("/health/ready").GET()).statusCode()).isEqualTo(200);
    }

    /**
     * RD-04, CD-03, CD-06: cancel aborts (earlier chunks replayable), destroys the sandbox despite
     * destroyOnComplete false; cancelRequested stays.
     */
    @Test
    void cancelAbortsTheRunAndAlwaysDestroysTheSandbox() {
        JsonObject s = sandbox();
        String runId = newRunId();
        runs.start(
                Runs.runBody(
                        runId, ref(s), "echo started; sleep 120", ",\"destroyOnComplete\":false"));
        try (SseClient sse = runs.events(runId, null)) {
            SseClient.Event e;
            do {
                e = sse.next(Duration.ofSeconds(30));
            } while (e != null && !e.data().contains("started"));
            assertThat(runs.cancel(runId).statusCode()).isEqualTo(202);
            List<SseClient.Event> rest = Runs.drain(sse, Duration.ofSeconds(60));
            assertThat(rest.get(rest.size() - 1).name()).isEqualTo("RUN_ERROR");
        }
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("aborted");
        assertThat(record.getBoolean("cancelRequested")).isTrue();
        assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + s.getString("key")))
                .isEmpty();
        assertThat(api.get("/api/v1/sandboxes/" + s.getString("key"), Api.TENANT_A).statusCode())
                .isEqualTo(404);
        sandboxes.forget(s.getString("key"));
        List<SseClient.Event> replay = runs.transcript(runId, null);
        assertThat(replay.get(0).name()).isEqualTo("RUN_STARTED");
        assertThat(replay).anySatisfy(ev -> assertThat(ev.data()).contains("started"));
    }

    /**
     * CD-01, CD-06: closing the stream detaches a durable run that keeps running; attaching clears
     * detachedSince.
     */
    @Test
    void closingTheStreamDetachesADurableRunWhichKeepsRunningAndCanBeReattached() {
        JsonObject s = sandbox();
        String runId = newRunId();
        Instant before = Instant.now();
        try (SseClient sse =
                SseClient.open(
                        api.request("/api/v1/runs", Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .method(
                                        "POST",
                                        java.net.http.HttpRequest.BodyPublishers.ofString(
                                                Runs.runBody(
                                                        runId,
                                                        ref(s),
                                                        "for i in 1 2 3 4 5 6; do echo line$i; sleep 1; done",
                                                        ""))))) {
            assertThat(sse.status()).isEqualTo(200);
            assertThat(sse.next(Duration.ofSeconds(30)).name()).isEqualTo("RUN_STARTED");
        }
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(
                        () -> {
                            JsonObject record = runs.get(runId);
                            assertThat(record.getString("status")).isEqualTo("running");
                            assertThat(record.containsKey("detachedSince")).isTrue();
                            assertThat(Instant.parse(record.getString("detachedSince")))
                                    .isAfter(before.minusSeconds(1));
                            assertThat(record.getString("sandboxKey"))
                                    .isEqualTo(s.getString("key"));
                        });
        assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + s.getString("key")))
                .hasSize(1);

        try (SseClient sse = runs.events(runId, null)) {
            SseClient.Event first = sse.next(Duration.ofSeconds(30));
            assertThat(first.name()).isEqualTo("RUN_STARTED");
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                            () ->
                                    assertThat(runs.get(runId).containsKey("detachedSince"))
                                            .as("attach clears detachedSince")
                                            .isFalse());
            List<SseClient.Event> rest = Runs.drain(sse, Duration.ofSeconds(60));
            assertThat(rest.get(rest.size() - 1).name()).isEqualTo("RUN_FINISHED");
            assertThat(rest.stream().filter(e -> e.data().contains("line")).count()).isEqualTo(6);
        }
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
    }

    /** CD-07: a disconnect while bootstrapping detaches and the agent still starts. */
    @Test
    void aDisconnectWhileTheSandboxIsStillBootstrappingDetachesAndTheAgentStillStarts() {
        String runId = newRunId();
        String sandbox =
                "{\"definitionId\":\"bootstrapping-"
                        + UUID.randomUUID()
                        + "\",\"workspace\":{\"setup\":[\"sleep 3\"]}}";
        try (SseClient sse =
                SseClient.open(
                        api.request("/api/v1/runs", Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .method(
                                        "POST",
                                        java.net.http.HttpRequest.BodyPublishers.ofString(
                                                Runs.runBody(
                                                        runId,
                                                        sandbox,
                                                        "echo agent-ran",
                                                        ",\"destroyOnComplete\":true"))))) {
            assertThat(sse.next(Duration.ofSeconds(30)).name()).isEqualTo("RUN_STARTED");
        }
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> {
                            JsonObject record = runs.get(runId);
                            assertThat(record.getString("status")).isEqualTo("running");
                            assertThat(record.containsKey("detachedSince")).isTrue();
                        });
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () ->
                                assertThat(runs.get(runId).getString("status"))
                                        .isEqualTo("completed"));
        assertThat(runs.transcript(runId, null))
                .anySatisfy(e -> assertThat(e.data()).contains("agent-ran"));
        assertThat(runs.get(runId).getString("sandboxKey")).matches("[0-9a-f]{64}");
    }

    @Test
    void aRunningAgentKeepsItsSandboxAlivePastItsKeepAlive() {
        // The IT server looks for idle sandboxes every 2 s; this one's keep-alive is 3 s, and the
        // run outlives both twice over. (Not shorter: until the run starts the sandbox is idle,
        // and on a busy machine that alone may take a second or two.)
        JsonObject s =
                sandboxes.ensure(
                        "{\"definitionId\":\"busy-"
                                + UUID.randomUUID()
                                + "\",\"lifecycle\":{\"keepAliveMs\":3000}}");
        String runId = newRunId();
        runs.start(Runs.runBody(runId, ref(s), "echo start; sleep 10; echo end", ""));
        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events.get(events.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(events).anySatisfy(e -> assertThat(e.data()).contains("end"));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(
                                                DockerCli.containersWithLabels(
                                                        "dev.agentbox.key=" + s.getString("key")))
                                        .as("idle once the run is over")
                                        .isEmpty());
        sandboxes.forget(s.getString("key"));
    }

    /** CD-04: a disconnect cancels a non-durable run. */
    @Test
    void aDisconnectCancelsANonDurableRun() {
        JsonObject s = sandbox();
        String runId = newRunId();
        try (SseClient sse =
                SseClient.open(
                        api.request("/api/v1/runs", Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .method(
                                        "POST",
                                        java.net.http.HttpRequest.BodyPublishers.ofString(
                                                Runs.runBody(
                                                        runId,
                                                        ref(s),
                                                        "sleep 120",
                                                        ",\"durable\":false"))))) {
            assertThat(sse.next(Duration.ofSeconds(30)).name()).isEqualTo("RUN_STARTED");
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(runs.get(runId).getString("status")).isEqualTo("aborted"));
        sandboxes.forget(s.getString("key"));
    }

    /** CD-08: destroyOnComplete decides whether the sandbox goes after a normal end. */
    @Test
    void destroyOnCompleteDecidesWhetherTheSandboxGoesAfterANormalEnd() {
        JsonObject kept = sandbox();
        String keptRun = newRunId();
        runs.start(Runs.runBody(keptRun, ref(kept), "echo done", ",\"destroyOnComplete\":false"));
        runs.transcript(keptRun, null);
        assertThat(sandboxes.stdout(kept.getString("key"), "echo still-here"))
                .isEqualTo("still-here\n");

        JsonObject gone = sandbox();
        String goneRun = newRunId();
        runs.start(Runs.runBody(goneRun, ref(gone), "echo done", ",\"destroyOnComplete\":true"));
        runs.transcript(goneRun, null);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(
                                                DockerCli.containersWithLabels(
                                                        "dev.agentbox.key="
                                                                + gone.getString("key")))
                                        .isEmpty());
        sandboxes.forget(gone.getString("key"));
    }

    @Test
    void aRunCanBringItsOwnSandboxByEnsureBody() {
        String runId = newRunId();
        String definition = "run-ensure-" + UUID.randomUUID();
        runs.start(
                Runs.runBody(
                        runId,
                        "{\"definitionId\":\""
                                + definition
                                + "\",\"workspace\":{\"setup\":[\"echo prepared > /workspace/p\"]}}",
                        "cat /workspace/p",
                        ",\"destroyOnComplete\":true"));
        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events).anySatisfy(e -> assertThat(e.data()).contains("prepared"));
        assertThat(runs.get(runId).getString("sandboxKey")).matches("[0-9a-f]{64}");
    }
}
