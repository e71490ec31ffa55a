package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL pass only. RN-02: a run whose server died is reported {@code interrupted} — by {@code
 * GET /runs/{id}}, the lists and the thread's active run — once its driver lease has expired, and
 * {@code running} again as soon as a successor holds it. Server A holds no database session
 * (liveness {@code lease}), so its death is seen only when its lease (3 s) expires; neither A nor B
 * runs the reaper, so nothing adopts the run until a client attaches on B. They use a database of
 * their own: the IT server's reaper adopts an unattended run of its database once it is older than
 * its lease TTL (10 s), which a loaded machine reached before the checks were over.
 */
@PostgresPass
class InterruptedRunsPostgresIT {

    private static final String DB = "interrupted";

    private static Map<String, String> env(String node, String dbUrl) {
        Map<String, String> env = new HashMap<>(TakeoverPostgresIT.ENV);
        env.put("AGENTBOX_DB_URL", dbUrl);
        env.put("AGENTBOX_NODE_ID", node);
        env.put("AGENTBOX_REAPER_ENABLED", "false");
        return env;
    }

    private static String status(Api api, String runId) {
        return Api.object(api.get(Runs.path(runId), Api.TENANT_A)).getString("status");
    }

    private static List<String> listed(Api api, String query) {
        JsonArray a = Api.json(api.get("/api/v1/runs?" + query, Api.TENANT_A)).asJsonArray();
        return a.stream().map(JsonValue::asJsonObject).map(o -> o.getString("runId")).toList();
    }

    private static String query(String threadId, String status) {
        return "threadId="
                + URLEncoder.encode(threadId, StandardCharsets.UTF_8)
                + (status == null ? "" : "&status=" + status);
    }

    @Test
    void aRunWhoseServerDiedIsInterruptedUntilASuccessorTakesItThenRunningUntilItCompletes()
            throws Exception {
        Path work = Files.createTempDirectory("agentbox-interrupted");
        String dbUrl = ItDatabase.createPrivate(DB);
        Map<String, String> envA = env("A", dbUrl);
        envA.put("AGENTBOX_TAKEOVER_LIVENESS", "lease");
        try (JarServer b = JarServer.start(work, 24580, env("B", dbUrl), "/health/ready");
                Sandboxes sandboxes = new Sandboxes(b.api(), Api.TENANT_A)) {
            String key =
                    sandboxes
                            .ensure("{\"definitionId\":\"interrupted-" + UUID.randomUUID() + "\"}")
                            .getString("key");
            String runId = "int-" + UUID.randomUUID();
            String threadId = "t-int-" + UUID.randomUUID();
            String gate = "/tmp/gate-" + runId;
            String agent =
                    "echo '{\"delta\":\"before\"}'; while [ ! -f "
                            + gate
                            + " ]; do sleep 0.1; done; echo '{\"delta\":\"after\"}'";
            String body =
                    "{\"runId\":"
                            + Runs.jsonString(runId)
                            + ",\"threadId\":"
                            + Runs.jsonString(threadId)
                            + ",\"sandbox\":{\"key\":\""
                            + key
                            + "\"},\"harness\":\"command\",\"command\":"
                            + Runs.jsonString(agent)
                            + "}";
            JarServer a = JarServer.start(work, 24480, envA, "/health/ready");
            try {
                new Runs(a.api(), Api.TENANT_A).start(body);
                await().atMost(Duration.ofSeconds(30))
                        .until(
                                () ->
                                        Api.json(
                                                                b.api()
                                                                        .get(
                                                                                Runs.path(runId)
                                                                                        + "/log",
                                                                                Api.TENANT_A))
                                                        .asJsonArray()
                                                        .size()
                                                >= 4);
                assertThat(status(b.api(), runId)).as("A drives it").isEqualTo("running");
            } finally {
                a.kill();
            }

            await().atMost(Duration.ofSeconds(8))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> status(b.api(), runId).equals("interrupted"));
            assertThat(listed(b.api(), query(threadId, null))).containsExactly(runId);
            JsonObject first =
                    Api.json(b.api().get("/api/v1/runs?" + query(threadId, null), Api.TENANT_A))
                            .asJsonArray()
                            .getJsonObject(0);
            assertThat(first.getString("status")).isEqualTo("interrupted");
            assertThat(listed(b.api(), query(threadId, "interrupted"))).containsExactly(runId);
            assertThat(listed(b.api(), query(threadId, "running"))).isEmpty();
            assertThat(
                            Api.object(
                                            b.api()
                                                    .get(
                                                            "/api/v1/threads/"
                                                                    + URLEncoder.encode(
                                                                            threadId,
                                                                            StandardCharsets.UTF_8)
                                                                    + "/active-run",
                                                            Api.TENANT_A))
                                    .getString("status"))
                    .isEqualTo("interrupted");

            // A client attaching on B makes B take the run over: running again.
            try (SseClient sse = new Runs(b.api(), Api.TENANT_A).events(runId, null)) {
                await().atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> status(b.api(), runId).equals("running"));
                assertThat(listed(b.api(), query(threadId, "running"))).containsExactly(runId);
                assertThat(listed(b.api(), query(threadId, "interrupted"))).isEmpty();

                sandboxes.exec(key, "touch " + gate);
                List<SseClient.Event> rest = Runs.drain(sse, Duration.ofSeconds(60));
                assertThat(rest).isNotEmpty();
                assertThat(rest.get(rest.size() - 1).name()).isEqualTo("RUN_FINISHED");
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> status(b.api(), runId).equals("completed"));
            assertThat(listed(b.api(), query(threadId, "completed"))).containsExactly(runId);
        } finally {
            ItDatabase.dropPrivate(DB);
        }
    }
}
