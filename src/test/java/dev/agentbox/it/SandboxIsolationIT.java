package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Secrets, resource policy, network policy, git sources and ports, checked from outside agentbox.
 */
class SandboxIsolationIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final List<String> helperContainers = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        sandboxes.close();
        helperContainers.forEach(id -> DockerCli.run("rm", "-f", id));
    }

    private String definition() {
        return "iso-" + UUID.randomUUID();
    }

    @Test
    void secretsReachCommandsButNoDatabaseRowLogLineContainerConfigOrSnapshot() throws Exception {
        String secret = "S3CRET-" + UUID.randomUUID();
        JsonObject s =
                sandboxes.ensure(
                        "{\"definitionId\":\""
                                + definition()
                                + "\",\"workspace\":{\"setup\":[\"test -n \\\"$API_KEY\\\"\"],"
                                + "\"secrets\":{\"API_KEY\":\""
                                + secret
                                + "\"}},\"lifecycle\":{\"snapshot\":\"after-setup\"}}");
        String key = s.getString("key");
        assertThat(s.toString()).doesNotContain(secret);
        assertThat(sandboxes.stdout(key, "echo \"$API_KEY\"")).isEqualTo(secret + "\n");

        assertThat(DockerCli.ok("inspect", s.getString("providerSandboxId")))
                .doesNotContain(secret);
        String snapshot = s.getString("snapshotId");
        assertThat(DockerCli.ok("image", "inspect", snapshot)).doesNotContain(secret);
        DockerCli.Result inImage =
                DockerCli.run(
                        "run",
                        "--rm",
                        "--network",
                        "none",
                        snapshot,
                        "sh",
                        "-c",
                        "grep -rl '"
                                + secret
                                + "' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null; true");
        assertThat(inImage.out()).doesNotContain("/");

        assertThat(api.get("/api/v1/sandboxes", Api.TENANT_A).body()).doesNotContain(secret);
        Path serverDir = Path.of(System.getProperty("agentbox.it.server.dir"));
        assertThat(FilesContaining.find(serverDir.resolve("logs"), secret)).isEmpty();
        if ("postgresql".equals(System.getProperty("agentbox.it.db.kind"))) {
            assertThat(postgresRowsContaining(secret)).isEmpty();
        } else {
            assertThat(FilesContaining.find(serverDir.resolve("data"), secret)).isEmpty();
        }
    }

    @Test
    void policyLimitsAreAppliedToTheContainer() {
        JsonObject s =
                sandboxes.ensure(
                        "{\"definitionId\":\""
                                + definition()
                                + "\",\"policy\":{\"memoryMb\":256,\"cpus\":0.5,\"pids\":100}}");
        String inspect =
                DockerCli.ok(
                        "inspect",
                        "-f",
                        "{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}} {{.HostConfig.PidsLimit}} {{.HostConfig.NetworkMode}} {{.HostConfig.Privileged}}",
                        s.getString("providerSandboxId"));
        assertThat(inspect).isEqualTo("268435456 500000000 100 none false");
    }

    @Test
    void aNoneSandboxCannotReachAListenerThatABridgeSandboxCanReach() {
        // Not a container on the default bridge: bridge sandboxes are isolated from other
        // Docker networks now. A routed stand-in for the outside world (see OutsideHost).
        try (OutsideHost outside =
                OutsideHost.start(
                        "agentbox/sandbox:busybox",
                        "while true; do echo hello | nc -l -p 7000; done")) {
            String probe = "timeout 5 bash -c 'cat < /dev/tcp/" + outside.address() + "/7000'";

            JsonObject bridge =
                    sandboxes.ensure(
                            "{\"definitionId\":\""
                                    + definition()
                                    + "\",\"policy\":{\"network\":\"bridge\"}}");
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(15))
                    .untilAsserted(
                            () ->
                                    assertThat(sandboxes.stdout(bridge.getString("key"), probe))
                                            .contains("hello"));

            JsonObject none =
                    sandboxes.ensure(
                            "{\"definitionId\":\""
                                    + definition()
                                    + "\",\"policy\":{\"network\":\"none\"}}");
            JsonObject blocked = sandboxes.exec(none.getString("key"), probe);
            assertThat(blocked.getInt("exitCode")).isNotZero();
            assertThat(blocked.getString("stdout")).doesNotContain("hello");
        }
    }

    @Test
    void aGitSourceIsClonedAtTheRequestedRefAndDepth() {
        try (OutsideHost daemon =
                OutsideHost.start(
                        "agentbox/sandbox:bookworm",
                        "git init -q -b main /srv/repo && cd /srv/repo && git config user.email t@example.invalid && git config user.name t"
                                + " && echo hello > README && git add README && git commit -qm one"
                                + " && echo two > second && git add second && git commit -qm two"
                                + " && exec git daemon --export-all --base-path=/srv --reuseaddr /srv")) {
            String body =
                    "{\"definitionId\":\""
                            + definition()
                            + "\",\"policy\":{\"network\":\"bridge\"},\"workspace\":{"
                            + "\"source\":{\"type\":\"git\",\"url\":\"git://"
                            + daemon.address()
                            + "/repo\",\"ref\":\"main\",\"depth\":1},"
                            + "\"setup\":[\"test -f README\"]}}";
            JsonObject s =
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofSeconds(1))
                            .until(
                                    () -> sandboxes.ensureRaw(body),
                                    r -> r.statusCode() == 201 || r.statusCode() == 200)
                            .body()
                            .transform(Api::parse);
            String key = s.getString("key");
            assertThat(sandboxes.stdout(key, "cat README second")).isEqualTo("hello\ntwo\n");
            assertThat(sandboxes.stdout(key, "git log --oneline | wc -l").trim()).isEqualTo("1");
            assertThat(sandboxes.stdout(key, "git rev-parse --abbrev-ref HEAD").trim())
                    .isEqualTo("main");
        }
    }

    @Test
    void aPublishedPortResolvesToAUrlTheHostCanReach() throws Exception {
        JsonObject s =
                sandboxes.ensure(
                        "{\"definitionId\":\""
                                + definition()
                                + "\",\"image\":\"agentbox/sandbox:busybox\","
                                + "\"policy\":{\"network\":\"bridge\",\"ports\":[8080]}}");
        String key = s.getString("key");
        api.send(
                api.request("/api/v1/sandboxes/" + key + "/files?path=index.html", Api.TENANT_A)
                        .PUT(HttpRequest.BodyPublishers.ofString("served from the sandbox")));
        api.send(
                api.request("/api/v1/sandboxes/" + key + "/processes", Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        "{\"command\":\"httpd -f -p 8080 -h /workspace\"}")));
        JsonObject channel =
                Api.object(api.get("/api/v1/sandboxes/" + key + "/ports/8080", Api.TENANT_A));
        URI url = URI.create(channel.getString("url") + "/index.html");
        assertThat(url.getHost()).isEqualTo("127.0.0.1");
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(15))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            HttpResponse<String> r =
                                    HttpClient.newHttpClient()
                                            .send(
                                                    HttpRequest.newBuilder(url).build(),
                                                    HttpResponse.BodyHandlers.ofString());
                            assertThat(r.body()).isEqualTo("served from the sandbox");
                        });
    }

    private static List<String> postgresRowsContaining(String needle) throws Exception {
        List<String> hits = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(ItDatabase.urlAsSuperuser());
                Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertThat(tables).isNotEmpty();
            for (String table : tables) {
                try (ResultSet rs = s.executeQuery("SELECT t::text FROM \"" + table + "\" t")) {
                    while (rs.next()) {
                        if (rs.getString(1).contains(needle)) {
                            hits.add(table + ": " + rs.getString(1));
                        }
                    }
                }
            }
        }
        return hits;
    }
}
