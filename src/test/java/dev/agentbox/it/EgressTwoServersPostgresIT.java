package dev.agentbox.it;

import static dev.agentbox.it.EgressWorld.ALLOWED;
import static dev.agentbox.it.EgressWorld.DENIED;
import static dev.agentbox.it.EgressWorld.egressBody;
import static dev.agentbox.it.EgressWorld.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.Json;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL pass only (EG-06): the egress of a sandbox does not depend on the server that made it.
 * Server A (a runnable jar on the IT server's database, with the same pinned names) makes an egress
 * sandbox and starts a slow download in it; A is killed (SIGKILL) mid-download; the download
 * completes through the tenant's gateway, which is a container of its own, and the sandbox's next
 * request, made through the IT server, passes the gateway as before (and a denied one is still
 * refused).
 */
@PostgresPass
class EgressTwoServersPostgresIT {

    private static final int PORT_A = 19880;
    private static final int SIZE = 4 * 1024 * 1024;

    @TempDir Path work;

    @Test
    void aDownloadOutlivesTheServerThatStartedItAndTheOtherServersRequestsStillPassTheGateway()
            throws Exception {
        Sandboxes onB = new Sandboxes(Api.itServer(), Api.TENANT_A);
        // held until the tenant's gateway is removed at the end (EgressWorld.start)
        OutsideHost web = EgressWorld.start("dd if=/dev/urandom of=/www/big.bin bs=65536 count=64");
        String key = null;
        try {
            EgressWorld.removeGateways(EgressWorld.TENANT_A);
            String sha256 =
                    DockerCli.ok("exec", web.container(), "sha256sum", "/www/big.bin")
                            .split("\\s+")[0];
            JarServer a = JarServer.start(work, PORT_A, serverA(), "/health/ready");
            try {
                Api apiA = a.api();
                Sandboxes onA = new Sandboxes(apiA, Api.TENANT_A);
                key =
                        onA.ensure(
                                        egressBody(
                                                "egress-two-" + UUID.randomUUID(),
                                                "\"" + ALLOWED + "\"",
                                                "\"" + DENIED + "\""))
                                .getString("key");
                // 4 MiB at 256 KiB/s: about 16 s, so that A is surely gone mid-download even on
                // a machine whose other lanes slow each step here to seconds. Its output goes to
                // files, not to the server that started it (which will be gone).
                HttpResponse<String> started =
                        apiA.send(
                                apiA.request(
                                                "/api/v1/sandboxes/" + key + "/processes",
                                                Api.TENANT_A)
                                        .header("Content-Type", "application/json")
                                        .POST(
                                                HttpRequest.BodyPublishers.ofString(
                                                        Json.createObjectBuilder()
                                                                .add(
                                                                        "command",
                                                                        "curl -sS --limit-rate 256k"
                                                                                + " -o /tmp/big.bin http://"
                                                                                + ALLOWED
                                                                                + "/big.bin"
                                                                                + " >/tmp/dl.log 2>&1;"
                                                                                + " echo $? > /tmp/dl.rc")
                                                                .build()
                                                                .toString())));
                assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
                final String k = key;
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> size(onA, k) > 0);
            } finally {
                a.kill();
            }
            long atKill = size(onB, key);
            assertThat(atKill).as("bytes when A was gone").isLessThan(SIZE);
            final String k = key;
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> !onB.stdout(k, "cat /tmp/dl.rc 2>/dev/null").isBlank());
            assertThat(onB.stdout(key, "cat /tmp/dl.rc; cat /tmp/dl.log").trim()).isEqualTo("0");
            assertThat(size(onB, key)).isEqualTo(SIZE);
            assertThat(onB.stdout(key, "sha256sum /tmp/big.bin").split("\\s+")[0])
                    .isEqualTo(sha256);
            // a new request, made through the surviving server, passes the same gateway
            assertThat(status(onB, key, "http://" + ALLOWED + "/")).isEqualTo("200");
            assertThat(status(onB, key, "http://" + DENIED + "/")).isEqualTo("403");
        } finally {
            try {
                if (key != null) {
                    onB.delete(key);
                }
                EgressWorld.removeGateways(EgressWorld.TENANT_A);
            } finally {
                web.close();
            }
        }
    }

    /**
     * EG-22 across servers: server A drives a {@code command} run whose sandbox has a brokered
     * secret (its value only ever in A's memory and the gateway's tmpfs); A is killed and the
     * tenant's gateway removed. The IT server takes the run over, its refusal reader makes the
     * gateway again and gives it the placeholder by name only; the agent's next request is refused
     * {@code 502} and the run ends {@code secret-missing}, naming the variable and host, after a
     * {@code CUSTOM egress.secret-missing} chunk, instead of passing the bare placeholder on.
     */
    @Test
    void aValueOnlyADeadServerHeldEndsTheRunSecretMissingAfterTheGatewayIsMadeAgain_EG22()
            throws Exception {
        OutsideHost web = EgressWorld.start("");
        Runs onB = new Runs(Api.itServer(), Api.TENANT_A);
        String runId = "r-secret-missing-" + UUID.randomUUID();
        // the run's sandbox, should the run not end as it must (then nothing destroys it)
        RunSandboxes made = new RunSandboxes(Api.itServer(), Api.TENANT_A, EgressWorld.TENANT_A);
        made.track(runId);
        try {
            EgressWorld.removeGateways(EgressWorld.TENANT_A);
            String body =
                    egressBody("egress-missing-" + UUID.randomUUID(), "\"" + ALLOWED + "\"", "");
            String sandbox =
                    body.substring(0, body.length() - 1)
                            + ",\"workspace\":{\"secrets\":{\"API_KEY\":{\"value\":\"sk-held-by-a\","
                            + "\"brokerHosts\":[\""
                            + ALLOWED
                            + "\"]}}}}";
            String agent =
                    "for i in $(seq 1 90); do curl -s -o /dev/null -w 'code=%{http_code}\\n' --max-time 5"
                            + " -H \"Authorization: Bearer $API_KEY\" http://"
                            + ALLOWED
                            + "/; sleep 1; done";
            JarServer a = JarServer.start(work, PORT_A, serverA(), "/health/ready");
            try {
                Runs onA = new Runs(a.api(), Api.TENANT_A);
                onA.start(Runs.runBody(runId, sandbox, agent, ""));
                try (SseClient sse = onA.events(runId, null)) {
                    SseClient.Event e;
                    do {
                        e = sse.next(Duration.ofSeconds(60));
                    } while (e != null && !e.data().contains("code=200"));
                    assertThat(e).as("the brokered request passed while A lived").isNotNull();
                }
            } finally {
                a.kill();
            }
            DockerCli.ok("rm", "-f", EgressWorld.gateway(EgressWorld.TENANT_A));
            java.util.List<SseClient.Event> events = onB.transcript(runId, null);
            SseClient.Event last = events.get(events.size() - 1);
            assertThat(last.name()).as(events.toString()).isEqualTo("RUN_ERROR");
            assertThat(last.data())
                    .contains("secret-missing")
                    .contains("API_KEY")
                    .contains(ALLOWED);
            assertThat(events)
                    .anySatisfy(
                            e ->
                                    assertThat(e.data())
                                            .contains("egress.secret-missing")
                                            .contains("\"name\":\"API_KEY\"")
                                            .contains("\"host\":\"" + ALLOWED + "\""));
            assertThat(events).anySatisfy(e -> assertThat(e.data()).contains("code=502"));
            jakarta.json.JsonObject record = onB.get(runId);
            assertThat(record.getString("status")).isEqualTo("failed");
            assertThat(record.getJsonObject("error").getString("code")).isEqualTo("secret-missing");
        } finally {
            try {
                made.destroyAll();
                EgressWorld.removeGateways(EgressWorld.TENANT_A);
            } finally {
                web.close();
            }
        }
    }

    /** Server A: a runnable jar on the IT server's database, with the same pinned names. */
    private static Map<String, String> serverA() {
        return Map.of(
                "AGENTBOX_DB_URL", ItDatabase.url(),
                "AGENTBOX_DB_USER", ItDatabase.user(),
                "AGENTBOX_DB_PASSWORD", ItDatabase.password(),
                "AGENTBOX_AUTH_TOKENS", "tenant-a=token-a,tenant-b=token-b,ops=token-ops",
                "AGENTBOX_NODE_ID", "egress-a",
                "AGENTBOX_EGRESS_IMAGE",
                        System.getProperty("agentbox.it.egress.image", "agentbox/egress:1"),
                "AGENTBOX_EGRESS_RESOLVE",
                        System.getProperty(
                                "agentbox.it.egress.resolve",
                                ALLOWED
                                        + "="
                                        + EgressWorld.address()
                                        + ","
                                        + DENIED
                                        + "="
                                        + EgressWorld.address()));
    }

    /** The size of the download so far, read in the sandbox through {@code sandboxes}' server. */
    private static long size(Sandboxes sandboxes, String key) {
        return Long.parseLong(
                sandboxes.stdout(key, "stat -c %s /tmp/big.bin 2>/dev/null || echo 0").trim());
    }
}
