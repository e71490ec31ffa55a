package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL pass only: a second server (the runnable jar) shares the IT server's database.
 * Concurrent first ensures of one key, one on each server, make exactly one container, and the
 * sandbox one server made is resumed through the other.
 */
@PostgresPass
class TwoServersPostgresIT {

    private static final int PORT = 19280;

    @TempDir Path work;

    /** WS-08: concurrent first ensures on two servers make exactly one container. */
    @Test
    void concurrentEnsuresOnTwoServersMakeExactlyOneContainer() throws Exception {
        Api first = Api.itServer();
        Map<String, String> env =
                Map.of(
                        "AGENTBOX_DB_URL", ItDatabase.url(),
                        "AGENTBOX_DB_USER", ItDatabase.user(),
                        "AGENTBOX_DB_PASSWORD", ItDatabase.password(),
                        "AGENTBOX_AUTH_TOKENS", "tenant-a=token-a,tenant-b=token-b,ops=token-ops",
                        "AGENTBOX_NODE_ID", "second");
        try (JarServer secondServer = JarServer.start(work, PORT, env, "/health/ready")) {
            Api second = secondServer.api();
            String body =
                    "{\"definitionId\":\"two-servers-"
                            + UUID.randomUUID()
                            + "\",\"workspace\":{\"setup\":[\"sleep 2\",\"echo ran >> /workspace/.runs\"]}}";
            List<CompletableFuture<HttpResponse<String>>> calls =
                    List.of(
                            CompletableFuture.supplyAsync(() -> ensure(first, body)),
                            CompletableFuture.supplyAsync(() -> ensure(second, body)));
            List<JsonObject> results =
                    calls.stream()
                            .map(CompletableFuture::join)
                            .map(
                                    r -> {
                                        assertThat(r.statusCode()).as(r.body()).isIn(200, 201);
                                        return Api.object(r);
                                    })
                            .toList();
            String key = results.get(0).getString("key");
            try {
                assertThat(results)
                        .extracting(o -> o.getString("outcome"))
                        .containsExactlyInAnyOrder("created", "resumed");
                assertThat(results.get(1).getString("key")).isEqualTo(key);
                assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + key)).hasSize(1);
                assertThat(
                                new Sandboxes(second, Api.TENANT_A)
                                        .stdout(key, "wc -l < /workspace/.runs")
                                        .trim())
                        .isEqualTo("1");
            } finally {
                new Sandboxes(first, Api.TENANT_A).delete(key);
            }
        }
    }

    private static HttpResponse<String> ensure(Api api, String body) {
        return api.send(
                api.request("/api/v1/sandboxes", Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }
}
