package dev.agentbox.tool.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.testing.NeedsDocker;
import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.ToolCallEvents;
import dev.agentbox.tool.ToolGate;
import dev.agentbox.tool.http.HttpTool;
import dev.agentbox.tool.http.HttpToolClient;
import dev.agentbox.tool.http.HttpToolSettings;
import dev.agentbox.tool.http.RequestSigner;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A run's tool bridge end to end: a relay in a real container (the test speaks MCP on its stdin and
 * stdout, as an agent's CLI does), the bridge following the mailbox through the sandbox channel,
 * HTTP tools served by a server on loopback.
 */
@NeedsDocker
class ToolBridgeDockerTest {

    private static final String TOKEN = "run-token-" + UUID.randomUUID();
    private static final byte[] SECRET = "definition-secret".getBytes(StandardCharsets.UTF_8);

    private static DockerSandboxProvider provider;
    private static SandboxHandle sandbox;
    private static HttpServer http;
    private static final AtomicInteger requests = new AtomicInteger();
    private static final List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    private static volatile CountDownLatch release = new CountDownLatch(0);
    private static volatile CountDownLatch blocked = new CountDownLatch(1);

    private final List<ToolBridge> bridges = new ArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image("agentbox/sandbox:bookworm").build(),
                        new DaemonThreads("bridge-test"),
                        Clock.systemUTC());
        String id = "bridge-" + UUID.randomUUID().toString().substring(0, 8);
        sandbox =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withKey(id, "tenant-bridge")
                                .withRequestedId(id));
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        http.createContext(
                "/echo",
                ex -> {
                    requests.incrementAndGet();
                    byte[] body = ex.getRequestBody().readAllBytes();
                    seen.add(
                            Map.of(
                                    "body", new String(body, StandardCharsets.UTF_8),
                                    "signature",
                                            String.valueOf(
                                                    ex.getRequestHeaders()
                                                            .getFirst(
                                                                    RequestSigner
                                                                            .SIGNATURE_HEADER)),
                                    "timestamp",
                                            String.valueOf(
                                                    ex.getRequestHeaders()
                                                            .getFirst(
                                                                    RequestSigner
                                                                            .TIMESTAMP_HEADER))));
                    answer(ex, ("{\"weather\":\"sunny\",\"asked\":" + new String(body) + "}"));
                });
        http.createContext(
                "/big",
                ex -> {
                    requests.incrementAndGet();
                    ex.getRequestBody().readAllBytes();
                    ex.sendResponseHeaders(200, 0); // chunked, no length announced
                    try (OutputStream o = ex.getResponseBody()) {
                        byte[] mib = new byte[1024 * 1024];
                        java.util.Arrays.fill(mib, (byte) 'x');
                        for (int i = 0; i < 10; i++) {
                            o.write(mib);
                        }
                    } catch (IOException closedByTheBridge) {
                        // expected: the bridge stops reading at its bound
                    }
                });
        http.createContext(
                "/block",
                ex -> {
                    requests.incrementAndGet();
                    ex.getRequestBody().readAllBytes();
                    blocked.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    answer(ex, "released");
                });
        http.start();
    }

    private static void answer(com.sun.net.httpserver.HttpExchange ex, String text)
            throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, b.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(b);
        }
    }

    @AfterAll
    static void stop() {
        http.stop(0);
        if (sandbox != null) {
            sandbox.destroy();
        }
        provider.close();
    }

    @AfterEach
    void closeBridges() {
        bridges.forEach(ToolBridge::close);
    }

    private static URI url(String path) {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + path);
    }

    private static HttpTool tool(String name, String url) {
        JsonObject schema =
                Json.createReader(
                                new StringReader(
                                        "{\"type\":\"object\",\"properties\":{\"city\":"
                                                + "{\"type\":\"string\"}},\"required\":[\"city\"]}"))
                        .readObject();
        return new HttpTool(name, "the " + name + " tool", schema, URI.create(url));
    }

    private static List<HttpTool> tools() {
        return List.of(
                tool("weather", url("/echo").toString()),
                tool("big", url("/big").toString()),
                tool("block", url("/block").toString()),
                tool("metadata", "http://169.254.169.254/latest/meta-data/"));
    }

    private ToolBridge bridge(Mailbox m, BridgeLimits limits, ToolGate gate) {
        HttpToolClient client =
                new HttpToolClient(
                        HttpToolSettings.defaults().withAllowedHosts(Set.of("127.0.0.1")),
                        Clock.systemUTC());
        ToolBridge b =
                ToolBridge.start(
                        sandbox.fs(),
                        m,
                        new ToolBridge.RunTools("run-1", TOKEN, tools(), SECRET),
                        gate,
                        client,
                        limits,
                        new ToolCallEvents() {
                            @Override
                            public void started(String key, String tool, String args) {
                                events.add("start " + tool + " " + args);
                            }

                            @Override
                            public void finished(String key, String text, boolean error) {
                                events.add("end " + error);
                            }
                        });
        bridges.add(b);
        return b;
    }

    private static Mailbox mailbox() {
        Mailbox m = new Mailbox("/tmp/agentbox-runs/run-" + UUID.randomUUID() + ".mcp");
        ToolBridge.prepare(sandbox.fs(), m);
        return m;
    }

    /** An MCP client on a relay's stdin and stdout. */
    static final class Client {
        final SandboxProcess process;
        final StringBuffer out = new StringBuffer();
        int nextId = 1;

        Client(Mailbox m, String token) {
            process =
                    sandbox.process()
                            .spawn(
                                    "/opt/agentbox/bin/agentbox-sandboxd mcp " + m.dir(),
                                    ProcessOptions.defaults()
                                            .withEnv(Map.of("AGENTBOX_MCP_TOKEN", token)));
            process.subscribe(
                    c -> {
                        if (c.stream() == OutputChunk.Stream.STDOUT) {
                            out.append(c.text());
                        }
                    });
        }

        List<JsonObject> lines() {
            String all = out.toString();
            int end = all.lastIndexOf('\n');
            if (end < 0) {
                return List.of();
            }
            return all.substring(0, end + 1)
                    .lines()
                    .map(l -> Json.createReader(new StringReader(l)).readObject())
                    .toList();
        }

        List<JsonObject> answersTo(int id) {
            return lines().stream()
                    .filter(o -> o.containsKey("id") && o.get("id").toString().equals("" + id))
                    .toList();
        }

        int send(String method, String params) {
            int id = nextId++;
            process.writeStdin(
                    "{\"jsonrpc\":\"2.0\",\"id\":"
                            + id
                            + ",\"method\":\""
                            + method
                            + "\",\"params\":"
                            + params
                            + "}\n");
            return id;
        }

        JsonObject call(String method, String params, Duration wait) {
            int id = send(method, params);
            await().atMost(wait)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1))
                    .until(
                            () ->
                                    out.toString().contains("\"id\":" + id + ",")
                                            && !answersTo(id).isEmpty());
            return answersTo(id).get(0);
        }

        JsonObject call(String method, String params) {
            return call(method, params, Duration.ofSeconds(20));
        }

        void initialize() {
            JsonObject init =
                    call(
                            "initialize",
                            "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                                    + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}");
            assertThat(init.getJsonObject("result").getJsonObject("serverInfo").getString("name"))
                    .isEqualTo("agentbox");
            process.writeStdin("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        }

        JsonObject callTool(String name, String args) {
            return call("tools/call", "{\"name\":\"" + name + "\",\"arguments\":" + args + "}")
                    .getJsonObject("result");
        }
    }

    private static String text(JsonObject result) {
        return result.getJsonArray("content").getJsonObject(0).getString("text");
    }

    @Test
    void aSessionInitializesListsTheToolsAndCallsAnHttpToolThatGetsASignedPost() throws Exception {
        Mailbox m = mailbox();
        bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        JsonObject list = c.call("tools/list", "{}").getJsonObject("result");
        assertThat(list.getJsonArray("tools").stream().map(t -> t.asJsonObject().getString("name")))
                .containsExactlyInAnyOrder("weather", "big", "block", "metadata");

        JsonObject r = c.callTool("weather", "{\"city\":\"Paris\"}");
        assertThat(r.getBoolean("isError", false)).isFalse();
        assertThat(text(r)).isEqualTo("{\"weather\":\"sunny\",\"asked\":{\"city\":\"Paris\"}}");
        Map<String, String> post = seen.get(seen.size() - 1);
        assertThat(post.get("body")).isEqualTo("{\"city\":\"Paris\"}");
        assertThat(post.get("signature"))
                .isEqualTo(
                        RequestSigner.sign(
                                SECRET,
                                Long.parseLong(post.get("timestamp")),
                                post.get("body").getBytes(StandardCharsets.UTF_8)));
        assertThat(events).containsExactly("start weather {\"city\":\"Paris\"}", "end false");
    }

    @Test
    void thePermissionPromptToolAnswersClaudeCodeByTheGateWithTheToolNameItGives() {
        Mailbox m = mailbox();
        List<String> asked = new CopyOnWriteArrayList<>();
        HttpToolClient client = new HttpToolClient(HttpToolSettings.defaults(), Clock.systemUTC());
        bridges.add(
                ToolBridge.start(
                        sandbox.fs(),
                        m,
                        new ToolBridge.RunTools(
                                "run-1", ToolBridge.sha256(TOKEN), List.of(), new byte[0], true),
                        call -> {
                            asked.add(call.tool() + " " + call.arguments());
                            return CompletableFuture.completedFuture(
                                    call.tool().equals("Bash")
                                            ? GateDecision.deny("not this command")
                                            : GateDecision.allow());
                        },
                        client,
                        BridgeLimits.defaults(),
                        ToolCallEvents.NONE));
        Client c = new Client(m, TOKEN);
        c.initialize();
        JsonObject list = c.call("tools/list", "{}").getJsonObject("result");
        assertThat(list.getJsonArray("tools").stream().map(t -> t.asJsonObject().getString("name")))
                .containsExactly(PermissionPrompt.TOOL_NAME);

        JsonObject denied =
                c.callTool(
                        PermissionPrompt.TOOL_NAME,
                        "{\"tool_name\":\"Bash\",\"input\":{\"command\":\"rm -rf /\"},"
                                + "\"tool_use_id\":\"toolu_1\"}");
        assertThat(Json.createReader(new StringReader(text(denied))).readObject())
                .isEqualTo(
                        Json.createObjectBuilder()
                                .add("behavior", "deny")
                                .add("message", "refused: not this command")
                                .build());
        JsonObject allowed =
                c.callTool(
                        PermissionPrompt.TOOL_NAME,
                        "{\"tool_name\":\"Write\",\"input\":{\"file_path\":\"/workspace/a\"}}");
        assertThat(Json.createReader(new StringReader(text(allowed))).readObject())
                .isEqualTo(
                        Json.createReader(
                                        new StringReader(
                                                "{\"behavior\":\"allow\",\"updatedInput\":"
                                                        + "{\"file_path\":\"/workspace/a\"}}"))
                                .readObject());
        // The run's own bridged tools are gated by their handler, by their bare name.
        c.callTool(PermissionPrompt.TOOL_NAME, "{\"tool_name\":\"mcp__agentbox__weather\"}");
        assertThat(asked)
                .containsExactly(
                        "Bash {\"command\":\"rm -rf /\"}",
                        "Write {\"file_path\":\"/workspace/a\"}");
    }

    /**
     * A client tool (AG-15): a valid call is streamed under its {@code agentbox-tool-} id and waits
     * for the client, whose answer the agent gets; arguments against the schema are an error result
     * that never reaches the client.
     */
    @Test
    void aClientToolCallWaitsForTheClientAndABadArgumentNeverReachesIt() {
        Mailbox m = mailbox();
        List<String> clientSaw = new CopyOnWriteArrayList<>();
        CompletableFuture<dev.agentbox.tool.ClientToolCalls.Answer> answer =
                new CompletableFuture<>();
        dev.agentbox.tool.ClientTool pick =
                dev.agentbox.tool.ClientTool.fromJson(
                        Json.createReader(
                                        new StringReader(
                                                "{\"name\":\"pick_color\",\"parameters\":{\"type\":\"object\","
                                                        + "\"properties\":{\"hint\":{\"type\":\"string\"}},"
                                                        + "\"required\":[\"hint\"]}}"))
                                .readObject());
        bridges.add(
                ToolBridge.start(
                        sandbox.fs(),
                        m,
                        new ToolBridge.RunTools(
                                "run-1",
                                ToolBridge.sha256(TOKEN),
                                List.of(),
                                new byte[0],
                                false,
                                List.of(pick)),
                        ToolGate.ALLOW_ALL,
                        new HttpToolClient(HttpToolSettings.defaults(), Clock.systemUTC()),
                        BridgeLimits.defaults(),
                        new RecordedToolEvents(events),
                        (call, toolCallId) -> {
                            clientSaw.add(call.tool() + " " + call.arguments() + " " + toolCallId);
                            return answer;
                        }));
        Client c = new Client(m, TOKEN);
        c.initialize();
        JsonObject bad = c.callTool("pick_color", "{\"hint\":7}");
        assertThat(bad.getBoolean("isError")).isTrue();
        assertThat(clientSaw).isEmpty();

        int id =
                c.send("tools/call", "{\"name\":\"pick_color\",\"arguments\":{\"hint\":\"warm\"}}");
        await().atMost(Duration.ofSeconds(20)).until(() -> !clientSaw.isEmpty());
        assertThat(clientSaw.get(0)).startsWith("pick_color {\"hint\":\"warm\"} agentbox-tool-");
        assertThat(c.answersTo(id)).as("the call waits for the client").isEmpty();
        answer.complete(new dev.agentbox.tool.ClientToolCalls.Answer("teal", false));
        await().atMost(Duration.ofSeconds(20)).until(() -> !c.answersTo(id).isEmpty());
        JsonObject r = c.answersTo(id).get(0).getJsonObject("result");
        assertThat(r.getBoolean("isError", false)).isFalse();
        assertThat(text(r)).isEqualTo("teal");
        assertThat(events)
                .containsExactly("start pick_color {\"hint\":\"warm\"}", "end false teal");
    }

    @Test
    void anArgumentAgainstTheSchemaIsAnErrorResultAndNothingIsPosted() {
        Mailbox m = mailbox();
        bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        int before = requests.get();
        JsonObject r = c.callTool("weather", "{\"city\":42}");
        assertThat(r.getBoolean("isError")).isTrue();
        assertThat(text(r)).containsIgnoringCase("city");
        assertThat(requests.get()).isEqualTo(before);
        // The session lives on.
        assertThat(c.callTool("weather", "{\"city\":\"Oslo\"}").getBoolean("isError")).isFalse();
    }

    @Test
    void aDeniedCallIsAnErrorResultWithTheReasonAndNeverPosted() {
        Mailbox m = mailbox();
        bridge(
                m,
                BridgeLimits.defaults(),
                call -> CompletableFuture.completedFuture(GateDecision.deny("not on Sundays")));
        Client c = new Client(m, TOKEN);
        c.initialize();
        int before = requests.get();
        JsonObject r = c.callTool("weather", "{\"city\":\"Rome\"}");
        assertThat(r.getBoolean("isError")).isTrue();
        assertThat(text(r)).contains("not on Sundays");
        assertThat(requests.get()).isEqualTo(before);
    }

    @Test
    void aSessionWithAnotherTokenGetsNothing() {
        Mailbox m = mailbox();
        bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, "run-token-of-another-run");
        c.send(
                "initialize",
                "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}");
        c.send("tools/call", "{\"name\":\"weather\",\"arguments\":{\"city\":\"Paris\"}}");
        McpRelayDockerTest.sleep(2000);
        assertThat(c.out.toString()).isEmpty();
        String session = sandbox.fs().read(m.sessions()).strip();
        assertThat(sandbox.fs().list(m.outDir(session))).isEmpty();
    }

    @Test
    void aUrlOnAHostNotAllowedIsRefusedBeforeAnyConnection() {
        Mailbox m = mailbox();
        bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        long t0 = System.nanoTime();
        JsonObject r = c.callTool("metadata", "{\"city\":\"x\"}");
        assertThat(r.getBoolean("isError")).isTrue();
        assertThat(text(r)).contains("169.254.169.254 is not allowed");
        // Refused before a connect was attempted: no connect timeout was waited for.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(4));
    }

    @Test
    void aTenMebibyteAnswerIsAnErrorResult() {
        Mailbox m = mailbox();
        bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        JsonObject r = c.callTool("big", "{\"city\":\"x\"}");
        assertThat(r.getBoolean("isError")).isTrue();
        assertThat(text(r)).isEqualTo("tool answer is larger than 1048576 bytes");
    }

    @Test
    void aTenMebibyteLineWrittenStraightIntoTheMailboxIsDroppedAndTheSessionGoesOn() {
        Mailbox m = mailbox();
        ToolBridge b = bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        String session = sandbox.fs().read(m.sessions()).strip();
        // What a hostile process in the sandbox can do past the relay.
        assertThat(
                        sandbox.process()
                                .exec(
                                        "head -c 10485760 /dev/zero | tr '\\0' x >> "
                                                + m.in(session)
                                                + " && echo >> "
                                                + m.in(session))
                                .exitCode())
                .isZero();
        assertThat(c.callTool("weather", "{\"city\":\"Lima\"}").getBoolean("isError")).isFalse();
        assertThat(b.sessionCount()).isEqualTo(1);
    }

    @Test
    void callsPastTheRunsLimitGetAClearErrorAndThousandsAreBounded() {
        Mailbox m = mailbox();
        ToolBridge b = bridge(m, new BridgeLimits(8, 1024 * 1024, 16, 1000), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        // 1005 calls, written straight into the mailbox (as fast as the sandbox can append), then
        // read by the bridge: 1000 are answered, 5 get the limit's error, and the in-flight bound
        // refuses what would run at once beyond 16.
        String session = sandbox.fs().read(m.sessions()).strip();
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 1005; i++) {
            lines.append("{\"jsonrpc\":\"2.0\",\"id\":")
                    .append(10_000 + i)
                    .append(",\"method\":\"tools/call\",\"params\":{\"name\":\"weather\",")
                    .append("\"arguments\":{\"city\":\"c")
                    .append(i)
                    .append("\"}}}\n");
        }
        sandbox.fs().write("/tmp/calls-" + session, lines.toString());
        long t0 = System.nanoTime();
        assertThat(
                        sandbox.process()
                                .exec("cat /tmp/calls-" + session + " >> " + m.in(session))
                                .exitCode())
                .isZero();
        await().atMost(Duration.ofSeconds(120)).until(() -> c.lines().size() >= 1 + 1005);
        System.out.printf(
                "tool bridge: 1005 calls appended at once answered in %d ms%n",
                (System.nanoTime() - t0) / 1_000_000);
        List<JsonObject> answers = c.lines().subList(1, c.lines().size());
        long limit =
                answers.stream()
                        .filter(a -> a.containsKey("error"))
                        .filter(
                                a ->
                                        a.getJsonObject("error")
                                                .getString("message")
                                                .contains("at most 1000 per run"))
                        .count();
        long inFlight =
                answers.stream()
                        .filter(a -> a.containsKey("error"))
                        .filter(
                                a ->
                                        a.getJsonObject("error")
                                                .getString("message")
                                                .contains("at once"))
                        .count();
        long ok = answers.stream().filter(a -> a.containsKey("result")).count();
        assertThat(limit).isEqualTo(5);
        assertThat(ok + inFlight).isEqualTo(1000);
        assertThat(ok).isPositive();
        System.out.printf("tool bridge: %d answered, %d refused as in flight%n", ok, inFlight);
        assertThat(b.callCount()).isEqualTo(1005);
    }

    @Test
    void aServerTakingTheRunOverAnswersTheWaitingCallExactlyOnce() throws Exception {
        blocked = new CountDownLatch(1);
        release = new CountDownLatch(1);
        Mailbox m = mailbox();
        ToolBridge a = bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        int id = c.send("tools/call", "{\"name\":\"block\",\"arguments\":{\"city\":\"x\"}}");
        assertThat(blocked.await(20, TimeUnit.SECONDS)).isTrue();
        a.close(); // server A dies mid-wait

        blocked = new CountDownLatch(1);
        bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL); // server B
        assertThat(blocked.await(20, TimeUnit.SECONDS)).as("B calls the tool again").isTrue();
        release.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> !c.answersTo(id).isEmpty());
        McpRelayDockerTest.sleep(1500); // room for a second answer, if one were coming
        assertThat(c.answersTo(id)).hasSize(1);
        assertThat(text(c.answersTo(id).get(0).getJsonObject("result"))).isEqualTo("released");
        assertThat(c.lines())
                .hasSize(2); // initialize's answer (from A, not repeated) and the call's
        // The session is whole on B: a new call works.
        assertThat(c.callTool("weather", "{\"city\":\"Bern\"}").getBoolean("isError")).isFalse();
    }

    /**
     * What a call costs through relay, mailbox, channel and bridge (the HTTP tool answers at once
     * on loopback): printed, and bounded loosely so a regression to polling (250 ms a side) shows.
     */
    @Test
    void aSequentialCallRoundTripsInMillisecondsNotPolls() {
        Mailbox m = mailbox();
        bridge(m, BridgeLimits.defaults(), ToolGate.ALLOW_ALL);
        Client c = new Client(m, TOKEN);
        c.initialize();
        c.callTool("weather", "{\"city\":\"warm-up\"}");
        long[] ms = new long[100];
        for (int i = 0; i < ms.length; i++) {
            long t0 = System.nanoTime();
            assertThat(c.callTool("weather", "{\"city\":\"c" + i + "\"}").getBoolean("isError"))
                    .isFalse();
            ms[i] = (System.nanoTime() - t0) / 1_000;
        }
        java.util.Arrays.sort(ms);
        System.out.printf(
                "tool bridge round trip over %d calls: median %.1f ms, p95 %.1f ms%n",
                ms.length, ms[ms.length / 2] / 1000.0, ms[ms.length * 95 / 100] / 1000.0);
        assertThat(ms[ms.length / 2] / 1000).isLessThan(200);
    }

    @Test
    void sessionsPastTheRunsBoundAreIgnored() {
        Mailbox m = mailbox();
        ToolBridge b = bridge(m, new BridgeLimits(1, 1024 * 1024, 16, 1000), ToolGate.ALLOW_ALL);
        Client first = new Client(m, TOKEN);
        first.initialize();
        Client second = new Client(m, TOKEN);
        second.send(
                "initialize",
                "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}");
        McpRelayDockerTest.sleep(1500);
        assertThat(second.out.toString()).isEmpty();
        assertThat(b.sessionCount()).isEqualTo(1);
        assertThat(first.callTool("weather", "{\"city\":\"Kyiv\"}").getBoolean("isError"))
                .isFalse();
    }
}
