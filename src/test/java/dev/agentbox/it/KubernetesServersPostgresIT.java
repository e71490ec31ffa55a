package dev.agentbox.it;

import static dev.agentbox.it.GatedAgent.AFTER_THREE;
import static dev.agentbox.it.GatedAgent.agent;
import static dev.agentbox.it.GatedAgent.expected;
import static dev.agentbox.it.GatedAgent.gate;
import static dev.agentbox.it.GatedAgent.storedFingerprints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.sandbox.kubernetes.GatewayPodFixture;
import dev.agentbox.sandbox.kubernetes.PodContainers;
import dev.agentbox.testing.PostgresPass;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import jakarta.json.JsonObject;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * PostgreSQL pass only: the service on the {@code kubernetes} provider, through its HTTP API, with
 * two servers (runnable jars) on one database standing for two replicas. The API server is
 * fabric8's mock (CRUD mode) in this JVM, reached by both servers through a kubeconfig; {@link
 * PodContainers} plays the kubelet, so every pod is a Docker container running the real helper, and
 * its IP the container's. What this shows, and what only a real cluster could: {@code
 * docs/kubernetes.md}.
 *
 * <p>The tests share the two servers and run in order: the last one kills server A.
 *
 * <p>A {@code command} agent's HTTP tool call also crosses the pod: the helper's tool client writes
 * the call into the run's mailbox in the pod, the driving server's bridge reads it over the pod's
 * channel, posts the tool and writes the answer back the same way.
 *
 * <p>The egress gateway is deployed ({@link GatewayPodFixture}) and known to server A only (EG-11,
 * EG-12): an egress ensure through B is refused before any pod is made, one through A makes a pod
 * whose one way out is the gateway, and its destroy through B takes its rules out of the gateway.
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubernetesServersPostgresIT {

    private static final int PORT_A = 19910;
    private static final int PORT_B = 19920;
    private static final String NAMESPACE = "agentbox-sandboxes-it";
    private static final byte[] DATA = {0, 1, 2, (byte) 0xff, '\n', 'x'};

    private Path work;
    private KubernetesMockServer apiServer;
    private NamespacedKubernetesClient cluster;
    private PodContainers pods;
    private GatewayPodFixture gateway;
    private OutsideHost web;
    private JarServer serverA;
    private JarServer serverB;
    private Sandboxes onA;
    private Sandboxes onB;

    /** Sandboxes made and not yet deleted: deleted through B, which outlives A. */
    private final List<String> made = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeAll
    void startTheClusterAndTwoServers() throws Exception {
        work = Files.createTempDirectory("agentbox-kubernetes-it");
        apiServer =
                new KubernetesMockServer(
                        new Context(),
                        new MockWebServer(),
                        new HashMap<>(),
                        new KubernetesCrudDispatcher(),
                        false);
        apiServer.init(InetAddress.getLoopbackAddress(), 0);
        cluster = apiServer.createClient();
        pods = PodContainers.start(cluster, NAMESPACE);
        // the egress gateway of deploy/kubernetes/egress-gateway.yaml, and a host behind it
        gateway = GatewayPodFixture.start(cluster, NAMESPACE, java.util.Optional.empty());
        web =
                OutsideHost.start(
                        "agentbox/sandbox:busybox",
                        "mkdir -p /www && echo hello-through-the-gateway > /www/index.html"
                                + " && httpd -f -p 80 -h /www");
        Path kubeconfig =
                Files.writeString(
                        work.resolve("kubeconfig"),
                        """
                        apiVersion: v1
                        kind: Config
                        clusters:
                        - name: mock
                          cluster:
                            server: http://127.0.0.1:%d
                        users:
                        - name: agentbox
                          user:
                            token: mock-token
                        contexts:
                        - name: mock
                          context:
                            cluster: mock
                            user: agentbox
                            namespace: %s
                        current-context: mock
                        """
                                .formatted(apiServer.getPort(), NAMESPACE));
        Path sources = Files.createDirectories(work.resolve("sources/tree/src"));
        Files.write(sources.resolve("data.bin"), DATA);
        List<JarServer> servers =
                JarServer.startTogether(
                        () ->
                                JarServer.start(
                                        work,
                                        PORT_A,
                                        env("k8s-a", kubeconfig, true),
                                        "/health/ready"),
                        () ->
                                JarServer.start(
                                        work,
                                        PORT_B,
                                        env("k8s-b", kubeconfig, false),
                                        "/health/ready"));
        serverA = servers.get(0);
        serverB = servers.get(1);
        onA = new Sandboxes(serverA.api(), Api.TENANT_A);
        onB = new Sandboxes(serverB.api(), Api.TENANT_A);
    }

    /** With {@code egress}, the server knows the gateway is deployed (B does not: a rollout). */
    private Map<String, String> env(String node, Path kubeconfig, boolean egress) {
        Map<String, String> env = new HashMap<>(TakeoverPostgresIT.ENV);
        env.put("AGENTBOX_NODE_ID", node);
        env.put("AGENTBOX_PROVIDERS_KUBERNETES_ENABLED", "true");
        env.put("AGENTBOX_KUBERNETES_CREDENTIALS", "kubeconfig");
        env.put("AGENTBOX_KUBERNETES_KUBECONFIG", kubeconfig.toString());
        env.put("AGENTBOX_KUBERNETES_NAMESPACE", NAMESPACE);
        env.put("AGENTBOX_KUBERNETES_READY_TIMEOUT_MS", "90000");
        env.put("AGENTBOX_SOURCES_LOCAL_ENABLED", "true");
        env.put("AGENTBOX_SOURCES_LOCAL_ROOT", work.resolve("sources").toString());
        env.put("AGENTBOX_TOOLS_HTTP_ALLOWED_HOSTS", "127.0.0.1");
        env.put("AGENTBOX_KUBERNETES_EGRESS_ENABLED", Boolean.toString(egress));
        env.put(
                "AGENTBOX_EGRESS_RESOLVE",
                "web.allowed.test=" + web.address() + ",web.denied.test=" + web.address());
        return env;
    }

    @AfterAll
    void stopEverything() throws Exception {
        try {
            if (serverB != null) {
                for (String key : made) {
                    onB.delete(key);
                }
            }
        } finally {
            for (JarServer s : new JarServer[] {serverA, serverB}) {
                if (s != null) {
                    s.close();
                }
            }
            if (pods != null) {
                pods.close();
            }
            if (gateway != null) {
                gateway.close();
            }
            if (web != null) {
                web.close();
            }
            if (apiServer != null) {
                apiServer.destroy();
            }
            JarInstall.deleteTree(work);
        }
    }

    private static String podSandbox(String definition, String network, String workspace) {
        return "{\"provider\":\"kubernetes\",\"definitionId\":\""
                + definition
                + "-"
                + UUID.randomUUID()
                + "\",\"policy\":{\"network\":\""
                + network
                + "\"}"
                + workspace
                + "}";
    }

    /** Ensures through A; deleted at the end (through B) unless a test deletes it first. */
    private JsonObject ensure(String body) {
        JsonObject s = onA.ensure(body);
        onA.forget(s.getString("key"));
        made.add(s.getString("key"));
        return s;
    }

    private void delete(String key) {
        HttpResponse<String> r = onB.delete(key);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
        made.remove(key);
    }

    private Pod pod(String sandboxId) {
        return cluster.pods().inNamespace(NAMESPACE).withName(sandboxId).get();
    }

    @Test
    @Order(1)
    void anEnsureWithASourceSetupStepsAndSecretsMakesAPodWhoseWorkspaceHasThemAll()
            throws Exception {
        String secret = "s3cret-" + UUID.randomUUID();
        JsonObject s =
                ensure(
                        podSandbox(
                                "k8s-source",
                                "none",
                                ",\"workspace\":{\"source\":{\"type\":\"local\",\"path\":\"tree\"},"
                                        + "\"setup\":[\"cp src/data.bin copied.bin\","
                                        + "\"[ \\\"$API_KEY\\\" = \\\""
                                        + secret
                                        + "\\\" ] && echo matched > secret.txt\"],"
                                        + "\"secrets\":{\"API_KEY\":\""
                                        + secret
                                        + "\"}}"));
        assertThat(s.getString("outcome")).isEqualTo("created");
        assertThat(s.getString("provider")).isEqualTo("kubernetes");
        String key = s.getString("key");
        String id = s.getString("providerSandboxId");
        Pod pod = pod(id);
        assertThat(pod).as("the sandbox is pod " + id).isNotNull();
        assertThat(pod.getStatus().getPodIP()).doesNotStartWith("127.");

        // Every command below goes through the other server: any replica reaches any pod.
        assertThat(onB.stdout(key, "cmp src/data.bin copied.bin && echo same; cat secret.txt"))
                .isEqualTo("same\nmatched\n");
        HttpResponse<byte[]> file =
                java.net.http.HttpClient.newHttpClient()
                        .send(
                                serverB.api()
                                        .request(
                                                "/api/v1/sandboxes/"
                                                        + key
                                                        + "/files?path=copied.bin",
                                                Api.TENANT_A)
                                        .GET()
                                        .build(),
                                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.body()).containsExactly(DATA);
        // The secret is the sandbox's, never in the pod's spec or its annotations.
        assertThat(cluster.pods().inNamespace(NAMESPACE).withName(id).get().toString())
                .doesNotContain(secret);

        delete(key);
        await().atMost(Duration.ofSeconds(30)).until(() -> pod(id) == null);
    }

    @Test
    @Order(2)
    void aPortOfABridgePodIsServedThroughTheProxyOfEitherServer() {
        String key = ensure(podSandbox("k8s-ports", "bridge", "")).getString("key");
        onA.exec(key, "mkdir -p www && echo served from the pod > www/index.html");
        onA.start(
                key,
                "cd www && exec perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(LocalPort=>8081,"
                        + "Listen=>5,ReuseAddr=>1) or die $!; while($c=$s->accept){<$c>; open F,"
                        + " \"index.html\"; $b=join(\"\",<F>); print $c \"HTTP/1.0 200"
                        + " OK\\r\\nContent-Length: \".length($b).\"\\r\\n\\r\\n$b\"; close $c}'");
        for (JarServer server : List.of(serverA, serverB)) {
            JsonObject channel =
                    Api.object(
                            server.api()
                                    .get("/api/v1/sandboxes/" + key + "/ports/8081", Api.TENANT_A));
            assertThat(channel.getBoolean("proxied")).isTrue();
            HttpResponse<String> page =
                    PortProxyIT.awaitAnswer(
                            server.api(),
                            HttpRequest.newBuilder(
                                            URI.create(channel.getString("url") + "index.html"))
                                    .header("Authorization", "Bearer " + Api.TENANT_A));
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).isEqualTo("served from the pod\n");
        }
        delete(key);
    }

    @Test
    @Order(3)
    void aPodWithoutNetworkHasNoReachablePort() {
        String key = ensure(podSandbox("k8s-isolated", "none", "")).getString("key");
        ProblemAssert.assertProblem(
                serverA.api()
                        .send(
                                serverA.api()
                                        .request(
                                                "/api/v1/sandboxes/" + key + "/ports/8081",
                                                Api.TENANT_A)
                                        .GET()),
                422,
                "unsupported-capability");
        delete(key);
    }

    @Test
    @Order(3)
    void
            anEgressPodThroughAServerThatKnowsTheGatewayReachesOnlyItsAllowListWhileAServerWithoutRefusesIt() {
        // B has no gateway configured: refused before any pod is made
        int podsBefore = cluster.pods().inNamespace(NAMESPACE).list().getItems().size();
        HttpResponse<String> r =
                onB.ensureRaw(
                        "{\"provider\":\"kubernetes\",\"definitionId\":\"k8s-egress-"
                                + UUID.randomUUID()
                                + "\",\"policy\":{\"network\":\"egress\","
                                + "\"egress\":{\"allow\":[\"example.test\"]}}}");
        ProblemAssert.assertProblem(r, 422, "unsupported-capability");
        assertThat(Api.object(r).getString("capability")).isEqualTo("networkPolicy");
        assertThat(Api.object(r).getString("provider")).isEqualTo("kubernetes");
        assertThat(cluster.pods().inNamespace(NAMESPACE).list().getItems()).hasSize(podsBefore);

        // A has: the pod's one way out is the gateway, which lets through only what it allows
        JsonObject s =
                ensure(
                        "{\"provider\":\"kubernetes\",\"definitionId\":\"k8s-egress-"
                                + UUID.randomUUID()
                                + "\",\"policy\":{\"network\":\"egress\","
                                + "\"egress\":{\"allow\":[\"web.allowed.test\"]}}}");
        String key = s.getString("key");
        assertThat(onA.stdout(key, "curl -s --max-time 10 http://web.allowed.test/"))
                .isEqualTo("hello-through-the-gateway\n");
        assertThat(
                        onB.stdout(
                                key,
                                "curl -s -o /dev/null -w '%{http_code}' --max-time 10"
                                        + " http://web.denied.test/"))
                .isEqualTo("403");
        assertThat(onB.stdout(key, "printenv HTTPS_PROXY").strip())
                .isEqualTo("http://" + gateway.ip() + ":3128");
        String ip = pod(s.getString("providerSandboxId")).getStatus().getPodIP();
        delete(key);
        // the destroy through B took the pod's rules out of the gateway
        assertThat(gateway.rulesFor(ip)).isEmpty();
    }

    @Test
    @Order(4)
    void aCommandAgentInAPodCallsItsHttpToolThroughTheBridgeOverThePodsChannel() throws Exception {
        List<String> posted = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer tools =
                com.sun.net.httpserver.HttpServer.create(
                        new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        tools.createContext(
                "/weather",
                ex -> {
                    posted.add(new String(ex.getRequestBody().readAllBytes()));
                    byte[] answer = "sunny in the pod".getBytes();
                    ex.sendResponseHeaders(200, answer.length);
                    try (var o = ex.getResponseBody()) {
                        o.write(answer);
                    }
                });
        tools.start();
        String agentId = "k8s-tools-" + UUID.randomUUID().toString().substring(0, 8);
        String threadId = "t-" + agentId;
        try {
            String command =
                    "a=$(/opt/agentbox/bin/agentbox-sandboxd tool call weather"
                            + " '{\"city\":\"Paris\"}'); printf '{\"delta\":\"%s (exit %s)\"}\\n'"
                            + " \"$a\" \"$?\"";
            String definition =
                    "{\"sandbox\":"
                            + podSandbox("k8s-tools", "none", "")
                            + ",\"harness\":\"command\",\"command\":"
                            + jakarta.json.Json.createValue(command)
                            + ",\"destroyOnComplete\":true,\"tools\":[{\"name\":\"weather\","
                            + "\"description\":\"the weather\",\"parameters\":{\"type\":\"object\","
                            + "\"properties\":{\"city\":{\"type\":\"string\"}}},\"url\":"
                            + "\"http://127.0.0.1:"
                            + tools.getAddress().getPort()
                            + "/weather\"}]}";
            HttpResponse<String> put =
                    serverA.api()
                            .send(
                                    serverA.api()
                                            .request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                            .header("Content-Type", "application/json")
                                            .PUT(HttpRequest.BodyPublishers.ofString(definition)));
            assertThat(put.statusCode()).as(put.body()).isEqualTo(201);

            // Defined through A, run through B: the bridge is the driving server's.
            List<AgentsIT.Event> events =
                    AgentsIT.readSse(
                            serverB.api()
                                    .request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                    .header("Content-Type", "application/json")
                                    .POST(
                                            HttpRequest.BodyPublishers.ofString(
                                                    AgentsIT.input(
                                                            threadId,
                                                            "r-" + agentId,
                                                            new String[] {"user", "m-1", "go"}))));
            assertThat(events.get(events.size() - 1).name())
                    .as("%s", events)
                    .isEqualTo("RUN_FINISHED");
            assertThat(AgentsIT.Event.text(events)).isEqualTo("sunny in the pod (exit 0)");
            assertThat(posted).containsExactly("{\"city\":\"Paris\"}");
            assertThat(events.stream().map(AgentsIT.Event::name))
                    .as("the bridged call is in the stream")
                    .contains("TOOL_CALL_START", "TOOL_CALL_RESULT");
        } finally {
            tools.stop(0);
            serverB.api()
                    .send(
                            serverB.api()
                                    .request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                    .DELETE());
        }
    }

    @Test
    @Order(5)
    void aRunWhoseServerIsKilledIsFinishedByTheOtherOverThePodsChannelWithEveryChunkOnce()
            throws Exception {
        String key = ensure(podSandbox("k8s-run", "none", "")).getString("key");
        String runId = "k8s-run-" + UUID.randomUUID();
        Runs runsOnA = new Runs(serverA.api(), Api.TENANT_A);
        runsOnA.start(Runs.runBody(runId, "{\"key\":\"" + key + "\"}", agent(gate(runId)), ""));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> storedFingerprints(serverB.api(), runId).size() >= AFTER_THREE);

        serverA.kill();
        serverA = null;
        onB.exec(key, "touch " + gate(runId));

        Runs runsOnB = new Runs(serverB.api(), Api.TENANT_A);
        List<SseClient.Event> transcript = runsOnB.transcript(runId, null);
        assertThat(transcript.get(transcript.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(transcript.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList())
                .as("the successor replayed the pod's journal: every chunk once, in order")
                .containsExactlyElementsOf(expected(runId));
        assertThat(storedFingerprints(serverB.api(), runId))
                .containsExactlyElementsOf(expected(runId));
        JsonObject record = runsOnB.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record.getInt("driverEpoch")).isEqualTo(2);

        String id =
                Api.object(serverB.api().get("/api/v1/sandboxes/" + key, Api.TENANT_A))
                        .getString("providerSandboxId");
        delete(key);
        await().atMost(Duration.ofSeconds(30)).until(() -> pod(id) == null);
        await("every pod's container went with its pod")
                .atMost(Duration.ofSeconds(30))
                .until(() -> pods.running() == 0);
    }
}
