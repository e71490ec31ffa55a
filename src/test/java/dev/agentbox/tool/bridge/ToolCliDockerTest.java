package dev.agentbox.tool.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.testing.NeedsDocker;
import dev.agentbox.tool.ToolCallEvents;
import dev.agentbox.tool.ToolGate;
import dev.agentbox.tool.http.HttpTool;
import dev.agentbox.tool.http.HttpToolClient;
import dev.agentbox.tool.http.HttpToolSettings;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The helper's tool client ({@code agentbox-sandboxd tool}, docs/sandbox-channel.md "Tools from a
 * shell"), the MCP client of {@code command} agents: run in a real container against a real bridge
 * with an HTTP tool on loopback.
 */
@NeedsDocker
class ToolCliDockerTest {

    private static final String TOKEN = "run-token-" + UUID.randomUUID();
    private static final String CLI = "/opt/agentbox/bin/agentbox-sandboxd tool";

    private static DockerSandboxProvider provider;
    private static SandboxHandle sandbox;
    private static HttpServer http;
    private static ToolBridge bridge;
    private static Map<String, String> env;
    private static final AtomicInteger posts = new AtomicInteger();

    @BeforeAll
    static void start() throws IOException {
        provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image("agentbox/sandbox:bookworm").build(),
                        new DaemonThreads("tool-cli-test"),
                        Clock.systemUTC());
        String id = "toolcli-" + UUID.randomUUID().toString().substring(0, 8);
        sandbox =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withKey(id, "tenant-tool-cli")
                                .withRequestedId(id));
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext(
                "/echo",
                ex -> {
                    posts.incrementAndGet();
                    byte[] body = ex.getRequestBody().readAllBytes();
                    byte[] answer =
                            ("héllo \"" + new String(body, StandardCharsets.UTF_8) + "\"\nbye")
                                    .getBytes(StandardCharsets.UTF_8);
                    ex.sendResponseHeaders(200, answer.length);
                    try (OutputStream o = ex.getResponseBody()) {
                        o.write(answer);
                    }
                });
        http.start();
        Mailbox m = new Mailbox("/tmp/agentbox-runs/run-" + UUID.randomUUID() + ".mcp");
        ToolBridge.prepare(sandbox.fs(), m);
        JsonObject schema =
                Json.createReader(
                                new StringReader(
                                        "{\"type\":\"object\",\"properties\":{\"city\":"
                                                + "{\"type\":\"string\"}},\"required\":[\"city\"]}"))
                        .readObject();
        HttpTool echo =
                new HttpTool(
                        "echo",
                        "says it back",
                        schema,
                        URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/echo"));
        // Two sessions at once: every call of the CLI is a session of its own, so the calls
        // below pass this bound only because an ended session gives its place back.
        BridgeLimits limits = new BridgeLimits(2, 1024 * 1024, 4, 100);
        bridge =
                ToolBridge.start(
                        sandbox.fs(),
                        m,
                        new ToolBridge.RunTools("run-cli", TOKEN, List.of(echo), new byte[0]),
                        ToolGate.ALLOW_ALL,
                        new HttpToolClient(
                                HttpToolSettings.defaults().withAllowedHosts(Set.of("127.0.0.1")),
                                Clock.systemUTC()),
                        limits,
                        new ToolCallEvents() {
                            @Override
                            public void started(String key, String tool, String args) {}

                            @Override
                            public void finished(String key, String text, boolean error) {}
                        });
        env = Map.of("AGENTBOX_MCP_DIR", m.dir(), "AGENTBOX_MCP_TOKEN", TOKEN);
    }

    @AfterAll
    static void stop() {
        if (bridge != null) {
            bridge.close();
        }
        http.stop(0);
        if (sandbox != null) {
            sandbox.destroy();
        }
        provider.close();
    }

    private static ExecResult run(String command) {
        return sandbox.process().exec(command, ProcessOptions.defaults().withEnv(env));
    }

    @Test
    void listPrintsTheToolsWithTheirSchemas() {
        ExecResult r = run(CLI + " list");
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        JsonObject list = Json.createReader(new StringReader(r.stdout())).readObject();
        JsonObject tool = list.getJsonArray("tools").getJsonObject(0);
        assertThat(tool.getString("name")).isEqualTo("echo");
        assertThat(tool.getJsonObject("inputSchema").getJsonArray("required").getString(0))
                .isEqualTo("city");
    }

    @Test
    void aCallPrintsTheToolsTextDecodedAndManyCallsOutliveTheBoundOnOpenSessions() {
        int before = posts.get();
        for (int i = 0; i < 6; i++) {
            ExecResult r = run(CLI + " call echo '{\"city\":\"Paris " + i + "\"}'");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(r.stdout()).isEqualTo("héllo \"{\"city\":\"Paris " + i + "\"}\"\nbye\n");
        }
        assertThat(posts.get() - before).isEqualTo(6);
        assertThat(bridge.sessionCount()).as("ended sessions are let go").isLessThanOrEqualTo(2);
    }

    @Test
    void argumentsComeFromStdinWithADash() {
        ExecResult r = run("printf '{\"city\":\\n\"Oslo\"}' | " + CLI + " call echo -");
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).contains("Oslo");
    }

    @Test
    void aCallTheSchemaRefusesExitsOneWithTheReasonAndPostsNothing() {
        int before = posts.get();
        ExecResult r = run(CLI + " call echo '{\"town\":\"Paris\"}'");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stdout()).contains("city");
        assertThat(r.stderr()).contains("error");
        assertThat(posts.get()).isEqualTo(before);
    }

    @Test
    void jsonPrintsTheRawResult() {
        ExecResult r = run(CLI + " --json call echo '{\"city\":\"Rome\"}'");
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        JsonObject result = Json.createReader(new StringReader(r.stdout())).readObject();
        assertThat(result.getJsonArray("content").getJsonObject(0).getString("text"))
                .contains("Rome");
    }

    @Test
    void badUsageAndARunWithoutToolsExitTwo() {
        assertThat(run(CLI + " call echo 'not json'").exitCode()).isEqualTo(2);
        assertThat(run(CLI + " frobnicate").exitCode()).isEqualTo(2);
        ExecResult none =
                sandbox.process().exec(CLI + " list", ProcessOptions.defaults().withEnv(Map.of()));
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.stderr()).contains("no tools");
    }

    @Test
    void anUnknownToolIsAnErrorNotAHang() {
        ExecResult r = run(CLI + " call nosuch '{}'");
        assertThat(r.exitCode()).isIn(1, 3);
        assertThat(r.stderr()).isNotEmpty();
    }
}
