package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged runnable jar ({@code java -jar target/agentbox.jar}) without any token configured:
 * single-tenant dev mode on embedded Derby. The jar unpacks its server into a fresh folder on every
 * start, so the server's output directory (and with it the Derby database) is placed with {@code
 * WLP_OUTPUT_DIR}; started twice, the second start must reuse the database the first one created.
 */
class RunnableJarIT {

    private static final int PORT = 19180;

    @TempDir Path work;

    @Test
    void runnableJarStartsInDevModeAndReusesItsDerbyDatabaseOnRestart() throws Exception {
        String installation;
        try (JarServer server = JarServer.startJar(work, PORT, Map.of(), "/health/ready")) {
            Api api = server.api();
            assertThat(api.send(api.request("/api/v1/providers").GET()).statusCode())
                    .as("no token needed in dev mode")
                    .isEqualTo(200);
            JsonObject service =
                    HealthIT.check(
                                    Api.object(api.send(api.request("/health/ready").GET())),
                                    "agentbox")
                            .getJsonObject("data");
            assertThat(service.getString("auth")).isEqualTo("disabled");
            installation = service.getString("installationId");
            assertThat(server.log()).contains("dev mode");
        }
        try (var dbs = Files.walk(work)) {
            assertThat(dbs.filter(p -> p.getFileName().toString().equals("agentbox-db")).findAny())
                    .as("Derby database folder under the server's output dir")
                    .isPresent();
        }
        try (JarServer server = JarServer.startJar(work, PORT, Map.of(), "/health/ready")) {
            Api api = server.api();
            JsonObject again = Api.object(api.send(api.request("/health/ready").GET()));
            assertThat(
                            HealthIT.check(again, "agentbox")
                                    .getJsonObject("data")
                                    .getString("installationId"))
                    .as("the second start finds the database of the first")
                    .isEqualTo(installation);
        }
    }

    /**
     * Also, on the same server (no second start), AG-22: agent definitions past {@code
     * agentbox.agents.max-per-tenant} (2 here) are {@code 429 quota-exceeded}, which needs no
     * engine.
     */
    @Test
    void anUnreachableDockerEngineIsProviderUnavailableAndReadinessDown() throws Exception {
        Map<String, String> env =
                Map.of(
                        "AGENTBOX_DOCKER_HOST",
                        "unix://" + work.resolve("no-engine.sock"),
                        "AGENTBOX_AGENTS_MAX_PER_TENANT",
                        "2");
        try (JarServer server = JarServer.start(work, PORT, env, "/health/live")) {
            Api api = server.api();
            HttpResponse<String> ensure =
                    api.send(
                            api.request("/api/v1/sandboxes")
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString("{}")));
            ProblemAssert.assertProblem(ensure, 503, "provider-unavailable");

            HttpResponse<String> ready = api.send(api.request("/health/ready").GET());
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(HealthIT.check(Api.object(ready), "provider-docker").getString("status"))
                    .isEqualTo("DOWN");

            JsonObject docker =
                    ((JsonArray) Api.json(api.send(api.request("/api/v1/providers").GET())))
                            .getJsonObject(0);
            assertThat(docker.getString("name")).isEqualTo("docker");
            assertThat(docker.getBoolean("available")).isFalse();

            assertThat(putAgent(api, "first").statusCode()).isEqualTo(201);
            assertThat(putAgent(api, "second").statusCode()).isEqualTo(201);
            JsonObject full =
                    ProblemAssert.assertProblem(putAgent(api, "third"), 429, "quota-exceeded");
            assertThat(full.getString("quota")).isEqualTo("agents");
            assertThat(full.getInt("limit")).isEqualTo(2);
            assertThat(putAgent(api, "second").statusCode())
                    .as("replacing is not creating")
                    .isEqualTo(200);
            assertThat(api.send(api.request("/api/v1/agents/first").DELETE()).statusCode())
                    .isEqualTo(204);
            assertThat(putAgent(api, "third").statusCode()).as("a delete frees one").isEqualTo(201);
        }
    }

    private static HttpResponse<String> putAgent(Api api, String agentId) {
        return api.send(
                api.request("/api/v1/agents/" + agentId)
                        .header("Content-Type", "application/json")
                        .PUT(
                                HttpRequest.BodyPublishers.ofString(
                                        "{\"sandbox\":{},\"harness\":\"command\","
                                                + "\"command\":\"echo hi\"}")));
    }
}
