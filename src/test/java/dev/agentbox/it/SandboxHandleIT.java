package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The handle endpoints of one shared sandbox: exec, files, processes, file events, snapshot, fork.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxHandleIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private String key;
    private String base;

    @BeforeAll
    void ensure() {
        key =
                sandboxes
                        .ensure(
                                "{\"definitionId\":\"handle-"
                                        + UUID.randomUUID()
                                        + "\",\"workspace\":{\"env\":{\"GREETING\":\"hi\"}}}")
                        .getString("key");
        base = "/api/v1/sandboxes/" + key;
    }

    @AfterAll
    void cleanUp() {
        sandboxes.close();
    }

    private HttpResponse<String> post(String path, String json) {
        return api.send(
                api.request(base + path, Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    @Test
    void execKeepsStreamsApartReturnsTheExitCodeAndMergesEnvAndCwd() {
        JsonObject r = sandboxes.exec(key, "echo o; echo e >&2; exit 7");
        assertThat(r.getInt("exitCode")).isEqualTo(7);
        assertThat(r.getString("stdout")).isEqualTo("o\n");
        assertThat(r.getString("stderr")).isEqualTo("e\n");
        post("/files/mkdir", "{\"path\":\"sub\"}");
        JsonObject withOptions =
                Api.object(
                        post(
                                "/exec",
                                "{\"command\":\"echo $GREETING $EXTRA $(pwd)\",\"cwd\":\"sub\",\"env\":{\"EXTRA\":\"there\"}}"));
        assertThat(withOptions.getString("stdout")).isEqualTo("hi there /workspace/sub\n");
        assertProblem(post("/exec", "{}"), 400, "invalid-request");
    }

    @Test
    void filesRoundTripExactBytesAndListStatMoveDelete() {
        byte[] bytes = {0, 1, 2, (byte) 250};
        HttpResponse<String> put =
                api.send(
                        api.request(base + "/files?path=a/b/c.bin", Api.TENANT_A)
                                .header("Content-Type", "application/octet-stream")
                                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes)));
        assertThat(put.statusCode()).isEqualTo(204);
        HttpResponse<byte[]> got =
                sendBytes(api.request(base + "/files?path=a/b/c.bin", Api.TENANT_A).GET());
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).containsExactly(bytes);

        JsonArray list = (JsonArray) Api.json(api.get(base + "/files/list?path=a/b", Api.TENANT_A));
        assertThat(list).hasSize(1);
        assertThat(list.getJsonObject(0).getString("name")).isEqualTo("c.bin");
        assertThat(list.getJsonObject(0).getString("path")).isEqualTo("/workspace/a/b/c.bin");
        assertThat(list.getJsonObject(0).getString("type")).isEqualTo("file");

        JsonObject stat = Api.object(api.get(base + "/files/stat?path=a/b/c.bin", Api.TENANT_A));
        assertThat(stat.getString("type")).isEqualTo("file");
        assertThat(stat.getInt("size")).isEqualTo(4);
        assertThat(
                        Api.object(api.get(base + "/files/stat?path=a", Api.TENANT_A))
                                .containsKey("size"))
                .isFalse();
        assertProblem(api.get(base + "/files/stat?path=nope", Api.TENANT_A), 404, "not-found");
        assertProblem(api.get(base + "/files?path=nope", Api.TENANT_A), 404, "not-found");

        assertThat(
                        post("/files/move", "{\"from\":\"a/b/c.bin\",\"to\":\"moved.bin\"}")
                                .statusCode())
                .isEqualTo(204);
        assertProblem(
                post("/files/move", "{\"from\":\"a/b/c.bin\",\"to\":\"x\"}"), 404, "not-found");
        assertThat(
                        api.send(api.request(base + "/files?path=a", Api.TENANT_A).DELETE())
                                .statusCode())
                .isEqualTo(204);
        assertThat(
                        api.send(api.request(base + "/files?path=a", Api.TENANT_A).DELETE())
                                .statusCode())
                .isEqualTo(204);
        assertThat(sandboxes.stdout(key, "ls /workspace"))
                .contains("moved.bin")
                .doesNotContain("a\n");
    }

    @Test
    void aBackgroundProcessStreamsItsOutputThenItsExitAndCanBeKilled() {
        HttpResponse<String> spawned =
                post("/processes", "{\"command\":\"echo one; echo two >&2; exit 3\"}");
        assertThat(spawned.statusCode()).isEqualTo(201);
        String pid = Api.object(spawned).getString("pid");
        try (SseClient sse =
                SseClient.open(api.request(base + "/processes/" + pid + "/output", Api.TENANT_A))) {
            StringBuilder out = new StringBuilder();
            StringBuilder err = new StringBuilder();
            SseClient.Event e;
            while ((e = sse.next(Duration.ofSeconds(20))) != null && !e.name().equals("exit")) {
                (e.name().equals("stdout") ? out : err).append(e.data());
            }
            assertThat(e).isNotNull();
            assertThat(Api.parse(e.data()).getInt("exitCode")).isEqualTo(3);
            assertThat(out.toString()).contains("one");
            assertThat(err.toString()).contains("two");
        }

        String sleeper =
                Api.object(post("/processes", "{\"command\":\"sleep 600\"}")).getString("pid");
        assertThat(
                        api.send(api.request(base + "/processes/" + sleeper, Api.TENANT_A).DELETE())
                                .statusCode())
                .isEqualTo(204);
        assertProblem(api.get(base + "/processes/nope/output", Api.TENANT_A), 404, "not-found");
    }

    @Test
    void fileEventsReportAFileCreatedInTheWorkspace() {
        try (SseClient sse = SseClient.open(api.request(base + "/file-events", Api.TENANT_A))) {
            assertThat(sse.status()).isEqualTo(200);
            String name = "watched-" + UUID.randomUUID() + ".txt";
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> {
                                sandboxes.exec(key, "echo x > /workspace/" + name);
                                return true;
                            });
            SseClient.Event e;
            do {
                e = sse.next(Duration.ofSeconds(20));
            } while (e != null && !e.data().contains(name));
            assertThat(e).isNotNull();
            JsonObject event = Api.parse(e.data());
            assertThat(event.getString("path")).isEqualTo("/workspace/" + name);
            assertThat(event.getString("type")).isIn("create", "change");
        }
    }

    @Test
    void snapshotAndForkBranchAnIndependentSandbox() {
        sandboxes.exec(key, "echo original > /workspace/forked.txt");
        HttpResponse<String> snap = post("/snapshots", "");
        assertThat(snap.statusCode()).isEqualTo(201);
        assertThat(Api.object(snap).getString("snapshotId")).isNotBlank();

        HttpResponse<String> fork = post("/fork", "");
        assertThat(fork.statusCode()).isEqualTo(201);
        String forkKey = Api.object(fork).getString("key");
        try (Sandboxes forks = new Sandboxes(api, Api.TENANT_A)) {
            assertThat(forkKey).isNotEqualTo(key);
            assertThat(forks.stdout(forkKey, "cat /workspace/forked.txt")).isEqualTo("original\n");
            forks.exec(forkKey, "echo changed > /workspace/forked.txt");
            assertThat(sandboxes.stdout(key, "cat /workspace/forked.txt")).isEqualTo("original\n");
            assertThat(forks.delete(forkKey).statusCode()).isEqualTo(204);
        }
    }

    private HttpResponse<byte[]> sendBytes(HttpRequest.Builder request) {
        try {
            return java.net.http.HttpClient.newHttpClient()
                    .send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
