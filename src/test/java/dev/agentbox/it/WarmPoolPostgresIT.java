package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL pass only: the warm pool over HTTP on two servers (runnable jars) sharing the IT
 * database. The shared IT server keeps no pool (pool size 0), so every pooled container here is
 * made by the two servers of the test (WP-03, WP-07, WP-09 in docs/behavior.md).
 */
@PostgresPass
class WarmPoolPostgresIT {

    private static final int PORT_A = 19380;
    private static final int PORT_B = 19390;
    private static final Pattern COUNTER =
            Pattern.compile("^agentbox_pool_(hits|misses)_total\\{[^}]*\\} ([0-9.]+)$");

    @TempDir Path work;

    private static Map<String, String> env(String node, int size) {
        Map<String, String> env = new HashMap<>();
        env.put("AGENTBOX_DB_URL", ItDatabase.url());
        env.put("AGENTBOX_DB_USER", ItDatabase.user());
        env.put("AGENTBOX_DB_PASSWORD", ItDatabase.password());
        env.put("AGENTBOX_AUTH_TOKENS", "tenant-a=token-a,tenant-b=token-b,ops=token-ops");
        env.put("AGENTBOX_NODE_ID", node);
        // System properties: the jar built by the IT build carries the shared server's
        // bootstrap properties (pool size 0), which outrank environment variables.
        env.put(
                "JVM_ARGS",
                "-Dagentbox.pool.size=" + size + " -Dagentbox.pool.refill-interval-ms=500");
        return env;
    }

    @Test
    void ensuresOnTwoServersTakeEachPooledContainerOnceWithTheirOwnEnvAndSecrets()
            throws Exception {
        String installation;
        List<JarServer> servers =
                JarServer.startTogether(
                        () -> JarServer.start(work, PORT_A, env("pool-a", 3), "/health/ready"),
                        () -> JarServer.start(work, PORT_B, env("pool-b", 3), "/health/ready"));
        try (JarServer a = servers.get(0);
                JarServer b = servers.get(1)) {
            installation = installation(a.api());
            awaitPooled(installation, 3);
            Map<String, Double> before = counters(a.api(), b.api());
            List<String> keys = new ArrayList<>();
            try {
                List<CompletableFuture<JsonObject>> calls = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    Api api = i % 2 == 0 ? a.api() : b.api();
                    String secret = "pool-secret-" + i + "-" + UUID.randomUUID();
                    String body =
                            "{\"definitionId\":\"pool-"
                                    + UUID.randomUUID()
                                    + "\",\"workspace\":{\"env\":{\"CI\":\"ci-"
                                    + i
                                    + "\"},\"secrets\":{\"API_KEY\":\""
                                    + secret
                                    + "\"}}}";
                    calls.add(
                            CompletableFuture.supplyAsync(
                                    () -> {
                                        HttpResponse<String> r = ensure(api, body, Api.TENANT_A);
                                        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
                                        return Api.object(r);
                                    }));
                }
                List<JsonObject> made = calls.stream().map(CompletableFuture::join).toList();
                made.forEach(o -> keys.add(o.getString("key")));

                Set<String> containers = new HashSet<>();
                made.forEach(o -> containers.add(o.getString("providerSandboxId")));
                assertThat(containers).as("each container handed out once").hasSize(6);

                Map<String, Double> after = counters(a.api(), b.api());
                double hits = after.get("hits") - before.get("hits");
                double misses = after.get("misses") - before.get("misses");
                assertThat(hits + misses).isEqualTo(6);
                assertThat(hits)
                        .as("three were ready before the ensures")
                        .isGreaterThanOrEqualTo(3);

                int pooled = 0;
                for (int i = 0; i < 6; i++) {
                    JsonObject o = made.get(i);
                    String id = o.getString("providerSandboxId");
                    Sandboxes tenantA = new Sandboxes(i % 2 == 0 ? b.api() : a.api(), Api.TENANT_A);
                    String out = tenantA.stdout(o.getString("key"), "echo \"$CI:$API_KEY\"").trim();
                    assertThat(out).startsWith("ci-").contains(":pool-secret-");
                    String inspect = DockerCli.ok("inspect", id);
                    assertThat(inspect).doesNotContain("pool-secret-");
                    if (inspect.contains("\"dev.agentbox.pool\"")) {
                        pooled++;
                        // What labels cannot say after creation is in the record only.
                        assertThat(inspect).doesNotContain("\"dev.agentbox.tenant\"");
                    }
                    // Another tenant sees nothing of it, on either server.
                    assertThat(
                                    a.api()
                                            .get(
                                                    "/api/v1/sandboxes/" + o.getString("key"),
                                                    Api.TENANT_B)
                                            .statusCode())
                            .isEqualTo(404);
                    assertThat(b.api().get("/api/v1/sandboxes", Api.TENANT_B).body())
                            .doesNotContain(id);
                }
                assertThat(pooled).isEqualTo((int) hits);
            } finally {
                Sandboxes cleanup = new Sandboxes(a.api(), Api.TENANT_A);
                keys.forEach(cleanup::delete);
            }
        }
        // Both servers stopped gracefully: they destroyed the ready containers they made.
        awaitNoPooledReady(installation);
    }

    @Test
    void theReadyContainersOfAKilledServerAreTakenOverByAnother() throws Exception {
        List<String> orphaned;
        String installation;
        JarServer a = JarServer.start(work, PORT_A, env("pool-killed", 2), "/health/ready");
        try {
            installation = installation(a.api());
            orphaned = awaitPooled(installation, 2);
        } finally {
            a.kill(); // SIGKILL: no drain
        }
        assertThat(pooled(installation)).containsAll(orphaned);

        String key = null;
        try (JarServer b =
                JarServer.start(work, PORT_B, env("pool-survivor", 2), "/health/ready")) {
            HttpResponse<String> r =
                    ensure(
                            b.api(),
                            "{\"definitionId\":\"pool-takeover-" + UUID.randomUUID() + "\"}",
                            Api.TENANT_A);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            JsonObject o = Api.object(r);
            key = o.getString("key");
            String id = o.getString("providerSandboxId");
            String fullId = DockerCli.ok("inspect", "-f", "{{.Id}}", id).trim();
            assertThat(orphaned.stream().anyMatch(fullId::startsWith))
                    .as("the survivor handed out one of the killed server's containers")
                    .isTrue();
            assertThat(new Sandboxes(b.api(), Api.TENANT_A).stdout(key, "echo ok").trim())
                    .isEqualTo("ok");
            new Sandboxes(b.api(), Api.TENANT_A).delete(key);
        }
        // The survivor's stop drained what it made. The killed server's other container stays
        // ready (young, with its row) for the next server of the installation; this test removes
        // it so later tests start clean, and the next pool pass forgets its row (WP-10).
        for (String c : pooled(installation)) {
            DockerCli.run("rm", "-f", c);
        }
    }

    /**
     * The installation of the IT database, from {@code /health}: only containers labelled with it
     * are this test's (another installation may share the engine).
     */
    private static String installation(Api api) {
        return Installations.of(api);
    }

    private static List<String> pooled(String installation) {
        return DockerCli.containersWithLabels(
                "dev.agentbox.pool", "dev.agentbox.installation=" + installation);
    }

    /** Waits until {@code n} pooled containers exist; returns their ids (short form). */
    private static List<String> awaitPooled(String installation, int n)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (Instant.now().isBefore(deadline)) {
            List<String> running = pooled(installation);
            if (running.size() >= n) {
                Thread.sleep(1000); // its row is written right after the container starts
                return running;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the pool did not reach " + n + " containers in 90 s");
    }

    private static void awaitNoPooledReady(String installation) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        List<String> left = List.of();
        while (Instant.now().isBefore(deadline)) {
            left = pooled(installation);
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("pooled containers left after both servers stopped: " + left);
    }

    private static Map<String, Double> counters(Api... servers) {
        Map<String, Double> sum = new HashMap<>(Map.of("hits", 0.0, "misses", 0.0));
        for (Api api : servers) {
            for (String line :
                    api.send(api.request("/metrics?scope=application").GET()).body().split("\n")) {
                Matcher m = COUNTER.matcher(line.trim());
                if (m.matches()) {
                    sum.merge(m.group(1), Double.parseDouble(m.group(2)), Double::sum);
                }
            }
        }
        return sum;
    }

    private static HttpResponse<String> ensure(Api api, String body, String token) {
        return api.send(
                api.request("/api/v1/sandboxes", token)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }
}
