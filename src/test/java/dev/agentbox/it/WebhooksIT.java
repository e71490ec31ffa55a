package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.agentbox.testing.PostgresPass;
import dev.agentbox.tool.http.RequestSigner;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Webhooks through the deployed server: a definition's webhook to a receiver this test starts on
 * loopback (the IT server allows {@code 127.0.0.1} in {@code agentbox.tools.http.allowed-hosts}),
 * told {@code run.finished} when a {@code command} run of the agent ends, signed with the secret
 * the creating PUT showed.
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhooksIT {

    record Received(String signature, String timestamp, String body) {}

    private final Api api = Api.itServer();
    private final RunSandboxes made = new RunSandboxes(api, Api.TENANT_A, EgressWorld.TENANT_A);
    private final String agentId = "webhooks-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private HttpServer receiver;

    @BeforeAll
    void startReceiver() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext(
                "/hook",
                ex -> {
                    byte[] body = ex.getRequestBody().readAllBytes();
                    received.add(
                            new Received(
                                    ex.getRequestHeaders().getFirst(RequestSigner.SIGNATURE_HEADER),
                                    ex.getRequestHeaders().getFirst(RequestSigner.TIMESTAMP_HEADER),
                                    new String(body, StandardCharsets.UTF_8)));
                    ex.sendResponseHeaders(204, -1);
                    ex.close();
                });
        receiver.start();
    }

    /** Also the thread sandboxes of the agent's runs: the agent keeps them for the next turn. */
    @AfterAll
    void stop() {
        try {
            made.destroyAll();
        } finally {
            api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
            receiver.stop(0);
        }
    }

    private HttpResponse<String> put(String body) {
        return api.send(
                api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static String definition(String url) {
        return Json.createObjectBuilder()
                .add("sandbox", Json.createObjectBuilder().add("definitionId", "webhooks-it"))
                .add("harness", "command")
                .add("command", AgentsIT.ECHO)
                .add(
                        "webhooks",
                        Json.createArrayBuilder()
                                .add(
                                        Json.createObjectBuilder()
                                                .add("url", url)
                                                .add(
                                                        "events",
                                                        Json.createArrayBuilder()
                                                                .add("run.finished"))))
                .build()
                .toString();
    }

    @Test
    void aRunOfAnAgentWithAWebhookEndsWithASignedRunFinishedToTheReceiver() {
        assertThat(
                        assertProblem(
                                        put(definition("https://hooks.example/in")),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("webhooks[0].url");

        String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
        HttpResponse<String> created = put(definition(url));
        assertThat(created.statusCode()).isEqualTo(201);
        String secret = Api.object(created).getString("signingSecret");
        assertThat(secret).startsWith("whsec_");
        JsonObject view = Api.object(api.get("/api/v1/agents/" + agentId, Api.TENANT_A));
        assertThat(view.containsKey("signingSecret")).isFalse();
        assertThat(view.getJsonArray("webhooks").getJsonObject(0).getString("url")).isEqualTo(url);

        String threadId = "t-" + UUID.randomUUID();
        String runId = made.track("r-" + UUID.randomUUID());
        List<AgentsIT.Event> events =
                AgentsIT.readSse(
                        api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                AgentsIT.input(
                                                        threadId,
                                                        runId,
                                                        new String[] {"user", "m-1", "go"}))));
        assertThat(events.get(events.size() - 1).name())
                .as(events.get(events.size() - 1).data().toString())
                .isEqualTo("RUN_FINISHED");

        await().atMost(Duration.ofSeconds(30)).until(() -> !received.isEmpty());
        Received r = received.get(0);
        assertThat(r.signature())
                .isEqualTo(
                        RequestSigner.sign(
                                secret.getBytes(StandardCharsets.UTF_8),
                                Long.parseLong(r.timestamp()),
                                r.body().getBytes(StandardCharsets.UTF_8)));
        JsonObject payload = Api.parse(r.body());
        assertThat(payload.getString("event")).isEqualTo("run.finished");
        assertThat(payload.getString("tenant")).isEqualTo("tenant-a");
        assertThat(payload.getString("agentId")).isEqualTo(agentId);
        assertThat(payload.getString("threadId")).isEqualTo(threadId);
        assertThat(payload.getString("runId")).isEqualTo(runId);
        assertThat(payload.getString("id")).isNotBlank();
        assertThat(payload.getString("at")).isNotBlank();
    }
}
