package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL pass only: a detached run whose server died is finished by the reaper of another
 * server. Server A (a runnable jar on the shared database) starts the run, its viewer leaves, A is
 * killed with SIGKILL; the agent then exits and the IT server's timer (every 2 s) finds the
 * sentinel, replays the journal into the log and reclaims the sandbox.
 */
@PostgresPass
class ReaperPostgresIT {

    @Test
    void aDetachedRunWhoseServerDiedIsFinalizedByAnotherServersReaper() throws Exception {
        Path work = Files.createTempDirectory("agentbox-reaper-it");
        Map<String, String> env = new HashMap<>(TakeoverPostgresIT.ENV);
        env.put("AGENTBOX_NODE_ID", "A");
        env.put("AGENTBOX_REAPER_ENABLED", "false");
        // No database session for A: its death is seen by lease expiry only, which leaves the
        // detached run to the reaper's finalizer rather than an immediate successor.
        env.put("AGENTBOX_TAKEOVER_LIVENESS", "lease");
        Api it = Api.itServer();
        Runs runs = new Runs(it, Api.TENANT_A);
        String runId = "reaped-" + UUID.randomUUID();
        String gate = "/tmp/gate-" + runId;
        String key;
        try (JarServer a = JarServer.start(work, 19380, env, "/health/ready")) {
            key =
                    new Sandboxes(a.api(), Api.TENANT_A)
                            .ensure("{\"definitionId\":\"reaper-" + UUID.randomUUID() + "\"}")
                            .getString("key");
            String agent =
                    "echo '{\"delta\":\"before\"}'; while [ ! -f "
                            + gate
                            + " ]; do sleep 0.1; done; echo '{\"delta\":\"after\"}'";
            try (SseClient sse =
                    SseClient.open(
                            a.api()
                                    .request("/api/v1/runs", Api.TENANT_A)
                                    .header("Content-Type", "application/json")
                                    .method(
                                            "POST",
                                            HttpRequest.BodyPublishers.ofString(
                                                    Runs.runBody(
                                                            runId,
                                                            "{\"key\":\"" + key + "\"}",
                                                            agent,
                                                            ""))))) {
                assertThat(sse.status()).isEqualTo(200);
                // Until the agent's first line: the agent runs (detached from the driver)
                // before A dies, so only the finalizer has work left.
                SseClient.Event e;
                do {
                    e = sse.next(Duration.ofSeconds(30));
                    assertThat(e).as("the agent's first line").isNotNull();
                } while (!e.data().contains("\"before\""));
            }
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> runs.get(runId).containsKey("detachedSince"));
            a.kill();
        }
        new Sandboxes(it, Api.TENANT_A).exec(key, "touch " + gate);

        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () ->
                                assertThat(runs.get(runId).getString("status"))
                                        .isEqualTo("completed"));
        JsonObject record = runs.get(runId);
        assertThat(record.containsKey("detachedSince"))
                .as("only an attach clears detachedSince")
                .isTrue();
        List<SseClient.Event> transcript = runs.transcript(runId, null);
        assertThat(transcript.stream().filter(e -> e.data().contains("\"before\""))).hasSize(1);
        assertThat(transcript.stream().filter(e -> e.data().contains("\"after\""))).hasSize(1);
        assertThat(transcript.get(transcript.size() - 1).name()).isEqualTo("RUN_FINISHED");
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(
                                                DockerCli.containersWithLabels(
                                                        "dev.agentbox.key=" + key))
                                        .as("sandbox reclaimed")
                                        .isEmpty());
        assertThat(it.get("/api/v1/sandboxes/" + key, Api.TENANT_A).statusCode()).isEqualTo(404);
    }
}
