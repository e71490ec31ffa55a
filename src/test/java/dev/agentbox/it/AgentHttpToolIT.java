package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import dev.agentbox.tool.http.RequestSigner;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An agent definition's HTTP tool, called by the real Claude Code and the real Codex through their
 * run's tool bridge: the model (scripted, behind a {@link ModelHost}) asks for the tool ({@code
 * mcp__agentbox__weather}; Codex first finds it with its {@code tool_search}, then calls {@code
 * weather} in namespace {@code mcp__agentbox}), the server posts the arguments to a tool server on
 * this machine's loopback (allowed for the IT server in pom.xml, {@code
 * agentbox.tools.http.allowed-hosts}) signed with the definition's secret, and the answer reaches
 * the model.
 */
class AgentHttpToolIT {

    private static final String KEY = "sk-e2e-" + UUID.randomUUID();

    /** Codex searches its deferred tools, then calls the one found in the bridge's namespace. */
    private static final Turn[] CODEX_CALLS_WEATHER = {
        Turn.toolSearch("weather"),
        new Turn.ToolCall(
                "weather",
                Json.createObjectBuilder().add("city", "Paris").build(),
                java.util.Optional.of("mcp__agentbox")),
        Turn.text("it is sunny")
    };

    private static ModelHost host;
    private static ScriptedModelServer model;
    private static HttpServer tool;
    private static final List<String> posted = new CopyOnWriteArrayList<>();
    private static final List<String> callKeys = new CopyOnWriteArrayList<>();
    private static final List<String[]> signatures = new CopyOnWriteArrayList<>();
    private static final RunSandboxes made =
            new RunSandboxes(Api.itServer(), Api.TENANT_A, EgressWorld.TENANT_A);

    private final Api api = Api.itServer();
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);

    @BeforeAll
    static void start() throws Exception {
        host = ModelHost.start(KEY);
        model = host.model();
        tool = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        tool.createContext(
                "/weather",
                ex -> {
                    posted.add(
                            new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                    callKeys.add(ex.getRequestHeaders().getFirst("X-Agentbox-Call-Key"));
                    signatures.add(
                            new String[] {
                                ex.getRequestHeaders().getFirst(RequestSigner.TIMESTAMP_HEADER),
                                ex.getRequestHeaders().getFirst(RequestSigner.SIGNATURE_HEADER)
                            });
                    byte[] answer = "{\"forecast\":\"sunny-21C\"}".getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().add("Content-Type", "application/json");
                    ex.sendResponseHeaders(200, answer.length);
                    ex.getResponseBody().write(answer);
                    ex.close();
                });
        tool.start();
    }

    /** Also the sandbox of a run whose test failed before deleting it. */
    @AfterAll
    static void stop() {
        try {
            made.destroyAll();
        } finally {
            if (tool != null) {
                tool.stop(0);
            }
            if (host != null) {
                host.close();
            }
            EgressWorld.removeGateways(EgressWorld.TENANT_A);
        }
    }

    /** Claude Code's endpoint and quiet flags. */
    private static JsonObject claudeEnv() {
        return Json.createObjectBuilder()
                .add("ANTHROPIC_BASE_URL", "https://" + ModelHost.NAME)
                .add("DISABLE_TELEMETRY", "1")
                .add("DISABLE_AUTOUPDATER", "1")
                .add("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .add("CLAUDE_CODE_MAX_RETRIES", "0")
                .build();
    }

    /** Codex's endpoint is in its configuration file: written by a setup step. */
    private static String codexConfigStep() {
        return "mkdir -p \"$HOME/.codex\" && printf '%s\\n' "
                + ScriptedModelServer.codexConfig("https://" + ModelHost.NAME + "/v1", 0).stream()
                        .map(ShellQuote::single)
                        .collect(java.util.stream.Collectors.joining(" "))
                + " > \"$HOME/.codex/config.toml\"";
    }

    private JsonObject definition(String agentId, String harness) throws Exception {
        return definition(agentId, harness, JsonValue.EMPTY_JSON_ARRAY);
    }

    /** The agent's definition with the weather tool and {@code approvals}. */
    private JsonObject definition(String agentId, String harness, JsonArray approvals)
            throws Exception {
        String ca = Files.readString(Path.of("src/test/resources/egress-test-tls/ca.pem")).strip();
        boolean claude = harness.equals("claude-code");
        var setup =
                Json.createArrayBuilder()
                        .add(
                                "for f in /etc/agentbox/egress-ca.pem /etc/agentbox/ca-bundle.pem;"
                                        + " do printf '%s\\n' "
                                        + ShellQuote.single(ca)
                                        + " >> \"$f\"; done");
        if (!claude) {
            setup.add(codexConfigStep());
        }
        // Codex's endpoint is in its configuration file, out of agentbox's sight: the definition
        // says where its key goes (by default it would be brokered to api.openai.com).
        JsonObjectBuilder brokered = Json.createObjectBuilder();
        if (!claude) {
            brokered.add("OPENAI_API_KEY", Json.createArrayBuilder().add(ModelHost.NAME));
        }
        return Json.createObjectBuilder()
                .add("brokeredSecrets", brokered)
                .add(
                        "sandbox",
                        Json.createObjectBuilder()
                                .add("definitionId", agentId)
                                .add(
                                        "policy",
                                        Json.createObjectBuilder()
                                                .add("network", "egress")
                                                .add(
                                                        "egress",
                                                        Json.createObjectBuilder()
                                                                .add(
                                                                        "allow",
                                                                        Json.createArrayBuilder()
                                                                                .add(
                                                                                        ModelHost
                                                                                                .NAME))))
                                .add(
                                        "workspace",
                                        Json.createObjectBuilder()
                                                .add(
                                                        "env",
                                                        claude
                                                                ? claudeEnv()
                                                                : JsonValue.EMPTY_JSON_OBJECT)
                                                .add("setup", setup)))
                .add("harness", harness)
                .add("approvals", approvals)
                .add(
                        "tools",
                        Json.createArrayBuilder()
                                .add(
                                        Json.createObjectBuilder()
                                                .add("name", "weather")
                                                .add("description", "The weather of a city")
                                                .add(
                                                        "parameters",
                                                        Json.createObjectBuilder()
                                                                .add("type", "object")
                                                                .add(
                                                                        "properties",
                                                                        Json.createObjectBuilder()
                                                                                .add(
                                                                                        "city",
                                                                                        Json
                                                                                                .createObjectBuilder()
                                                                                                .add(
                                                                                                        "type",
                                                                                                        "string"))))
                                                .add(
                                                        "url",
                                                        "http://127.0.0.1:"
                                                                + tool.getAddress().getPort()
                                                                + "/weather")))
                .build();
    }

    private static String input(String threadId, String runId, String keyVariable) {
        return AgUiInterruptsIT.input(
                threadId,
                runId,
                JsonValue.EMPTY_JSON_ARRAY,
                null,
                keyVariable,
                KEY,
                "weather in Paris?");
    }

    @Test
    void claudeCodeCallsTheDefinitionsHttpToolThroughTheBridge() throws Exception {
        callsTheHttpToolThroughTheBridge(
                "claude-code",
                "ANTHROPIC_API_KEY",
                new Turn.ToolCall(
                        "mcp__agentbox__weather",
                        Json.createObjectBuilder().add("city", "Paris").build()),
                Turn.text("it is sunny"));
    }

    /** CH-10 over HTTP: a codex agent's run gets the bridge when its definition has tools. */
    @Test
    void codexFindsTheDefinitionsHttpToolAndCallsItThroughTheBridge() throws Exception {
        callsTheHttpToolThroughTheBridge("codex", "OPENAI_API_KEY", CODEX_CALLS_WEATHER);
    }

    private void assertTheModelGotTheAnswer() {
        List<ScriptedModelServer.RecordedRequest> asked = model.modelRequests();
        assertThat(asked.get(asked.size() - 1).body()).contains("sunny-21C");
    }

    /** Deletes the run's sandbox (when it got one) and the agent. */
    private void forget(String agentId, String sandboxKey) {
        if (sandboxKey != null) {
            sandboxes.delete(sandboxKey);
        }
        api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
    }

    /** Defines agent {@code agentId} (PUT) and returns its answer, {@code signingSecret} in it. */
    private JsonObject define(String agentId, JsonObject definition) {
        HttpResponse<String> created =
                api.send(
                        api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString(definition.toString())));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return Api.object(created);
    }

    /**
     * The AG-UI stream of one run of agent {@code agentId}, the key given as {@code keyVariable}.
     */
    private List<AgentsIT.Event> runAgent(String agentId, String runId, String keyVariable) {
        return AgentsIT.readSse(
                api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        input("t-" + agentId, runId, keyVariable))));
    }

    /**
     * AP-13: a codex run's bridged tool passes the definition's approval rules: {@code ask} holds
     * the call (the AG-UI run ends with the interrupt) until a person approves it, then the tool is
     * called once and the run completes.
     */
    @Test
    void aCodexRunsBridgedToolWaitsForItsApproval() throws Exception {
        posted.clear();
        model.clearRequests();
        String agentId = "e2e-tool-ask-" + UUID.randomUUID().toString().substring(0, 8);
        JsonArray askWeather =
                Json.createArrayBuilder()
                        .add(
                                Json.createObjectBuilder()
                                        .add("tool", "weather")
                                        .add("decision", "ask"))
                        .build();
        define(agentId, definition(agentId, "codex", askWeather));
        model.enqueue(CODEX_CALLS_WEATHER);
        String runId = made.track("e2e-tool-ask-run-" + UUID.randomUUID());
        String sandboxKey = null;
        try {
            List<AgentsIT.Event> events = runAgent(agentId, runId, "OPENAI_API_KEY");
            AgentsIT.Event end = events.get(events.size() - 1);
            assertThat(end.name()).as(events.toString()).isEqualTo("RUN_FINISHED");
            assertThat(end.data().getJsonObject("outcome").getString("type"))
                    .isEqualTo("interrupt");
            assertThat(posted).as("nothing called before the answer").isEmpty();
            JsonObject record = runs.get(runId);
            sandboxKey = record.getString("sandboxKey");
            JsonObject interrupt = record.getJsonArray("interrupts").getJsonObject(0);
            assertThat(interrupt.getString("tool")).isEqualTo("weather");
            assertThat(interrupt.getJsonObject("arguments").getString("city")).isEqualTo("Paris");

            HttpResponse<String> answered =
                    api.send(
                            api.request(
                                            Runs.path(runId)
                                                    + "/interrupts/"
                                                    + interrupt.getString("id"),
                                            Api.TENANT_A)
                                    .header("Content-Type", "application/json")
                                    .POST(
                                            HttpRequest.BodyPublishers.ofString(
                                                    "{\"status\":\"resolved\","
                                                            + "\"payload\":{\"approved\":true}}")));
            assertThat(answered.statusCode()).as(answered.body()).isBetween(200, 204);

            List<SseClient.Event> whole = runs.transcript(runId, null);
            assertThat(whole.get(whole.size() - 1).name())
                    .as(whole.toString())
                    .isEqualTo("RUN_FINISHED");
            assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
            assertThat(posted).containsExactly("{\"city\":\"Paris\"}");
            assertTheModelGotTheAnswer();
        } finally {
            forget(agentId, sandboxKey);
        }
    }

    private void callsTheHttpToolThroughTheBridge(String harness, String keyVariable, Turn... turns)
            throws Exception {
        posted.clear();
        callKeys.clear();
        signatures.clear();
        model.clearRequests();
        String agentId = "e2e-tool-" + UUID.randomUUID().toString().substring(0, 8);
        String secret = define(agentId, definition(agentId, harness)).getString("signingSecret");
        model.enqueue(turns);
        String runId = made.track("e2e-tool-run-" + UUID.randomUUID());
        String sandboxKey = null;
        try {
            List<AgentsIT.Event> events = runAgent(agentId, runId, keyVariable);
            sandboxKey = runs.get(runId).getString("sandboxKey");
            assertThat(events.get(events.size() - 1).name())
                    .as(events.toString())
                    .isEqualTo("RUN_FINISHED");
            assertThat(posted).as(events.toString()).hasSize(1);
            assertThat(Json.createReader(new java.io.StringReader(posted.get(0))).readObject())
                    .isEqualTo(Json.createObjectBuilder().add("city", "Paris").build());
            assertThat(callKeys.get(0)).isNotBlank();
            String[] signed = signatures.get(0);
            assertThat(signed[1])
                    .as("signed with the secret the creating PUT showed")
                    .isEqualTo(
                            RequestSigner.sign(
                                    secret.getBytes(StandardCharsets.UTF_8),
                                    Long.parseLong(signed[0]),
                                    posted.get(0).getBytes(StandardCharsets.UTF_8)));
            assertThat(runs.get(runId).toString()).doesNotContain(secret);
            assertThat(api.get("/api/v1/agents/" + agentId, Api.TENANT_A).body().contains(secret))
                    .isFalse();
            assertThat(events)
                    .anyMatch(
                            e ->
                                    e.name().equals("TOOL_CALL_START")
                                            && e.data().getString("toolCallName").equals("weather")
                                            && e.data()
                                                    .getString("toolCallId")
                                                    .startsWith("agentbox-tool-"));
            assertThat(events)
                    .anyMatch(
                            e ->
                                    e.name().equals("TOOL_CALL_RESULT")
                                            && e.data().getString("content").contains("sunny-21C"));
            assertTheModelGotTheAnswer();
        } finally {
            forget(agentId, sandboxKey);
        }
    }
}
