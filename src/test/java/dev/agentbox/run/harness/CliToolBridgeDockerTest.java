package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.sandbox.local.LocalSandboxProvider;
import dev.agentbox.sandbox.local.LocalSettings;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.testing.NeedsDocker;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import dev.agentbox.tool.ToolGate;
import dev.agentbox.tool.bridge.BridgeLimits;
import dev.agentbox.tool.bridge.Mailbox;
import dev.agentbox.tool.bridge.RecordedToolEvents;
import dev.agentbox.tool.bridge.ToolBridge;
import dev.agentbox.tool.http.HttpTool;
import dev.agentbox.tool.http.HttpToolClient;
import dev.agentbox.tool.http.HttpToolSettings;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Claude Code and Codex CLIs of {@code agentbox/sandbox:agents} call a run's HTTP tool
 * through the tool bridge: their command line gets the run's MCP server ({@link BridgeFlags}), the
 * scripted model asks for the tool, the CLI starts the relay and calls the tool, the bridge posts
 * to an HTTP server on loopback, and the model's next request carries the answer. Claude Code
 * offers the tool as {@code mcp__agentbox__weather}; Codex 0.171.0 only behind its {@code
 * tool_search}, so there the model searches for "weather" first, Codex answers with the tools its
 * relay listed (namespace {@code mcp__agentbox}), and the model calls {@code weather} in that
 * namespace (CH-10).
 *
 * <p>The CLI runs on the host's network (to reach the scripted model on loopback), so the mailbox
 * is a host directory mounted at the same path in the container, served to the bridge by a local
 * sandbox's file operations (which poll instead of follow).
 */
@NeedsDocker
class CliToolBridgeDockerTest {

    private static final String KEY = "sk-ant-test-" + Long.toHexString(System.nanoTime());

    @TempDir Path dir;

    private ScriptedModelServer model;
    private HttpServer http;
    private LocalSandboxProvider local;
    private volatile ToolBridge bridge;
    private Thread lateStart;
    private final List<String> posted = new CopyOnWriteArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void image() {
        AgentCliContainer.requireImage();
    }

    @BeforeEach
    void start() throws Exception {
        model = ScriptedModelServer.start(KEY);
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext(
                "/weather",
                ex -> {
                    posted.add(
                            new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                    byte[] b = "{\"forecast\":\"sunny-42\"}".getBytes(StandardCharsets.UTF_8);
                    ex.sendResponseHeaders(200, b.length);
                    try (OutputStream o = ex.getResponseBody()) {
                        o.write(b);
                    }
                });
        http.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (lateStart != null) {
            lateStart.interrupt();
            lateStart.join();
        }
        if (bridge != null) {
            bridge.close();
        }
        http.stop(0);
        model.close();
    }

    /** The run's mailbox in a host folder, served by a bridge with the {@code weather} tool. */
    private record Bridged(Path shared, Mailbox mailbox, String token) {}

    private Bridged bridged() throws Exception {
        return bridged(Duration.ZERO);
    }

    /**
     * As {@link #bridged()}, but the bridge starts reading the mailbox only {@code late} after this
     * returns (a server slow to answer, or one taking the run over): until then the relay the CLI
     * starts gets no answer, not even to {@code initialize}.
     */
    private Bridged bridged(Duration late) throws Exception {
        Path root = Files.createDirectories(dir.resolve("sandboxes"));
        local =
                new LocalSandboxProvider(
                        new LocalSettings(true, root),
                        new DaemonThreads("bridge-cli-test"),
                        Clock.systemUTC());
        String id = "cli-" + UUID.randomUUID().toString().substring(0, 8);
        SandboxHandle sandbox =
                local.create(SandboxCreateInput.defaults().withKey(id, "t").withRequestedId(id));
        Path shared = Path.of(sandbox.workspaceRoot()).toRealPath();
        Mailbox mailbox = new Mailbox(shared.resolve("run-1.mcp").toString());
        ToolBridge.prepare(sandbox.fs(), mailbox);
        String token = "token-" + UUID.randomUUID();
        HttpTool weather =
                new HttpTool(
                        "weather",
                        "The weather of a city",
                        Json.createReader(
                                        new StringReader(
                                                "{\"type\":\"object\",\"properties\":{\"city\":"
                                                        + "{\"type\":\"string\"}},"
                                                        + "\"required\":[\"city\"]}"))
                                .readObject(),
                        URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/weather"));
        Runnable start =
                () ->
                        bridge =
                                ToolBridge.start(
                                        sandbox.fs(),
                                        mailbox,
                                        new ToolBridge.RunTools(
                                                "run-1", token, List.of(weather), new byte[0]),
                                        ToolGate.ALLOW_ALL,
                                        new HttpToolClient(
                                                HttpToolSettings.defaults()
                                                        .withAllowedHosts(Set.of("127.0.0.1")),
                                                Clock.systemUTC()),
                                        BridgeLimits.defaults(),
                                        new RecordedToolEvents(events));
        if (late.isZero()) {
            start.run();
        } else {
            lateStart =
                    new Thread(
                            () -> {
                                try {
                                    Thread.sleep(late.toMillis());
                                } catch (InterruptedException e) {
                                    return;
                                }
                                start.run();
                            },
                            "late-bridge");
            lateStart.setDaemon(true);
            lateStart.start();
        }
        return new Bridged(shared, mailbox, token);
    }

    @Test
    void claudeCodeCallsAnHttpToolThroughTheBridgeAndTheModelGetsItsResult() throws Exception {
        claudeCodeCallsTheWeatherTool(bridged());
    }

    /**
     * A bridge that answers only after Claude Code's own default wait for MCP servers (30 s): the
     * CLI still holds its first model request until the run's server has connected ({@code
     * MCP_TIMEOUT} on the command line, {@link BridgeFlags}), so the first turn offers the tool.
     * Without it the first request goes out without {@code mcp__agentbox__weather}, the model's
     * call of it fails ("No such tool available") and the run still exits 0.
     */
    @Test
    void claudeCodeWaitsForABridgeThatAnswersLate() throws Exception {
        long started = System.nanoTime();
        claudeCodeCallsTheWeatherTool(bridged(Duration.ofSeconds(35)));
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .isGreaterThan(Duration.ofSeconds(35));
    }

    private void claudeCodeCallsTheWeatherTool(Bridged b) throws Exception {
        Path shared = b.shared();
        Mailbox mailbox = b.mailbox();
        String token = b.token();
        model.enqueue(
                new Turn.ToolCall(
                        "mcp__agentbox__weather",
                        Json.createObjectBuilder().add("city", "Paris").build()),
                Turn.text("It is sunny in Paris."));

        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        AgentCliContainer cli =
                new AgentCliContainer(workspace, Files.createDirectories(dir.resolve("home")))
                        .mountSamePath(shared)
                        .claudeCode(model.anthropicBaseUrl(), KEY);
        AgentInvocation invocation =
                BridgeFlags.withTools(
                        Harness.CLAUDE_CODE,
                        AgentCommands.claudeCode("What is the weather in Paris?"),
                        mailbox.dir(),
                        token);

        AgentCliContainer.Output out = cli.run(invocation);

        assertThat(out.exitCode()).as(out.stderr() + String.join("\n", out.lines())).isZero();
        // Claude Code lists the tool it learned from the bridge's tools/list from its first
        // request on.
        assertThat(model.modelRequests().get(0).body()).contains("mcp__agentbox__weather");
        assertThat(posted)
                .as(String.join("\n", out.lines()))
                .containsExactly("{\"city\":\"Paris\"}");
        String second = model.modelRequests().get(1).body();
        assertThat(second).contains("\"tool_result\"", "sunny-42");
        assertThat(events)
                .containsExactly(
                        "start weather {\"city\":\"Paris\"}",
                        "end false {\"forecast\":\"sunny-42\"}");
    }

    @Test
    void codexFindsTheRunsToolBySearchAndCallsItThroughTheBridge() throws Exception {
        Bridged b = bridged();
        model.enqueue(codexCallsWeather());
        AgentCliContainer cli = codexCli(b);
        AgentInvocation invocation =
                BridgeFlags.withTools(
                        Harness.CODEX,
                        AgentCommands.codex("What is the weather in Paris?"),
                        b.mailbox().dir(),
                        b.token());

        AgentCliContainer.Output out = cli.run(invocation);

        assertThat(out.exitCode()).as(out.stderr() + String.join("\n", out.lines())).isZero();
        // Codex offers the bridge's tools only behind its search: the search's answer names the
        // run's MCP server as a namespace holding the tool, with the schema from tools/list.
        JsonObject found = lastInput(1, "tool_search_output");
        JsonObject namespace = found.getJsonArray("tools").getJsonObject(0);
        assertThat(namespace.getString("name")).isEqualTo("mcp__agentbox");
        JsonObject tool = namespace.getJsonArray("tools").getJsonObject(0);
        assertThat(tool.getString("name")).isEqualTo("weather");
        assertThat(tool.getJsonObject("parameters").getJsonArray("required").getString(0))
                .isEqualTo("city");
        assertThat(posted)
                .as(String.join("\n", out.lines()))
                .containsExactly("{\"city\":\"Paris\"}");
        assertThat(lastInput(2, "function_call_output").toString()).contains("sunny-42");
        assertThat(events)
                .containsExactly(
                        "start weather {\"city\":\"Paris\"}",
                        "end false {\"forecast\":\"sunny-42\"}");
        List<JsonObject> chunks = CliTranscripts.translate(Harness.CODEX, out);
        CliTranscripts.assertEveryLineUnderstood(
                out, CodexTranslator::eventKind, CodexTranslator.HANDLED, chunks);
        assertThat(Transcripts.summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=" + chunks.get(1).getString("value"),
                        "TOOL_CALL_START toolCallId=r-0 toolCallName=mcp_tool_call",
                        "TOOL_CALL_ARGS toolCallId=r-0 delta={\"arguments\":{\"city\":\"Paris\"},"
                                + "\"server\":\"agentbox\",\"tool\":\"weather\"}",
                        "TOOL_CALL_END toolCallId=r-0",
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool content={\"error\":"
                                + "null,\"result\":{\"content\":[{\"text\":\"{\\\"forecast\\\":"
                                + "\\\"sunny-42\\\"}\",\"type\":\"text\"}],\"structured_content\":null},"
                                + "\"status\":\"completed\"}",
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=It is sunny in Paris.",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "RUN_FINISHED result=It is sunny in Paris.");
    }

    /** The model's turns of a Codex call of the weather tool: find it, call it, answer. */
    private static Turn[] codexCallsWeather() {
        return new Turn[] {
            Turn.toolSearch("weather"),
            new Turn.ToolCall(
                    "weather",
                    Json.createObjectBuilder().add("city", "Paris").build(),
                    Optional.of("mcp__agentbox")),
            Turn.text("It is sunny in Paris.")
        };
    }

    /** The Codex CLI with the scripted server as its only provider and the mailbox mounted. */
    private AgentCliContainer codexCli(Bridged b) throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(home.resolve(".codex"));
        Files.writeString(
                home.resolve(".codex/config.toml"),
                String.join("\n", ScriptedModelServer.codexConfig(model.openAiBaseUrl(), 0))
                        + "\n");
        return new AgentCliContainer(workspace, home)
                .mountSamePath(b.shared())
                .env("OPENAI_API_KEY", KEY);
    }

    /**
     * A thread's next turn of a codex agent with tools: the bridge's flags go into {@code codex
     * exec resume}'s line as into a first turn's, and the resumed session finds and calls the tool.
     */
    @Test
    void codexsResumedTurnCallsTheToolThroughTheBridgeToo() throws Exception {
        Bridged b = bridged();
        AgentCliContainer cli = codexCli(b);
        model.enqueue(Turn.text("Ask me about the weather."));
        AgentCliContainer.Output first =
                cli.run(
                        BridgeFlags.withTools(
                                Harness.CODEX,
                                AgentCommands.codex("Hello."),
                                b.mailbox().dir(),
                                b.token()));
        assertThat(first.exitCode()).as(first.stderr()).isZero();
        String session = CliTranscripts.translate(Harness.CODEX, first).get(1).getString("value");
        model.enqueue(codexCallsWeather());

        AgentInvocation resumed =
                BridgeFlags.withTools(
                        Harness.CODEX,
                        AgentCommands.codexResuming(
                                session,
                                "What is the weather in Paris?",
                                PermissionMode.BYPASS_PERMISSIONS),
                        b.mailbox().dir(),
                        b.token());
        AgentCliContainer.Output out = cli.run(resumed);

        assertThat(resumed.command()).startsWith("codex exec -c ").contains(" resume ");
        assertThat(out.exitCode()).as(out.stderr() + String.join("\n", out.lines())).isZero();
        assertThat(posted).containsExactly("{\"city\":\"Paris\"}");
        assertThat(model.modelRequests().get(1).body())
                .as("the resumed session")
                .contains("Hello.", "Ask me about the weather.");
        assertThat(lastInput(3, "function_call_output").toString()).contains("sunny-42");
    }

    /** The last input item of type {@code type} in the model's request number {@code n}. */
    private JsonObject lastInput(int n, String type) {
        List<JsonObject> items =
                model.modelRequests().get(n).json().orElseThrow().getJsonArray("input").stream()
                        .map(JsonValue::asJsonObject)
                        .filter(i -> type.equals(i.getString("type", "")))
                        .toList();
        assertThat(items).as("request " + n + " has a " + type).isNotEmpty();
        return items.get(items.size() - 1);
    }
}
