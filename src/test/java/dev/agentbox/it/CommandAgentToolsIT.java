package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A {@code command} agent calls its definition's tools with the helper's tool client (docs/api.md,
 * "Which runs offer tools"): the run gets the bridge, its command gets the mailbox and the token,
 * the approval rules gate the calls, and the answers reach the command.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandAgentToolsIT {

    private static final String CLI = "/opt/agentbox/bin/agentbox-sandboxd tool";

    private final Api api = Api.itServer();
    private final String prefix = "cmd-tools-" + UUID.randomUUID().toString().substring(0, 8);
    private final String agentId = prefix + "-agent";
    private final List<String> posted = new CopyOnWriteArrayList<>();
    private HttpServer http;

    @BeforeAll
    void startToolServer() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext(
                "/weather",
                ex -> {
                    String body =
                            new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    posted.add(ex.getRequestURI().getPath() + " " + body);
                    byte[] answer = "sunny in Paris".getBytes(StandardCharsets.UTF_8);
                    ex.sendResponseHeaders(200, answer.length);
                    try (OutputStream o = ex.getResponseBody()) {
                        o.write(answer);
                    }
                });
        http.start();
    }

    @AfterAll
    void cleanUp() {
        http.stop(0);
        api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
        try (Sandboxes s = new Sandboxes(api, Api.TENANT_A)) {
            for (JsonValue v : (JsonArray) Api.json(api.get("/api/v1/sandboxes", Api.TENANT_A))) {
                if (v.toString().contains(prefix)) {
                    s.delete(v.asJsonObject().getString("key"));
                }
            }
        }
        assertThat(Api.json(api.get("/api/v1/sandboxes", Api.TENANT_A)).toString())
                .as("no sandbox of this class is left")
                .doesNotContain(prefix);
    }

    private String tool(String name) {
        return Json.createObjectBuilder()
                .add("name", name)
                .add("description", "the " + name)
                .add(
                        "parameters",
                        Json.createObjectBuilder()
                                .add("type", "object")
                                .add(
                                        "properties",
                                        Json.createObjectBuilder()
                                                .add(
                                                        "city",
                                                        Json.createObjectBuilder()
                                                                .add("type", "string")))
                                .add("required", Json.createArrayBuilder().add("city")))
                .add("url", "http://127.0.0.1:" + http.getAddress().getPort() + "/" + name)
                .build()
                .toString();
    }

    @Test
    void aCommandAgentCallsItsToolsThroughTheHelperAndTheRulesGateThem() {
        // Two calls: one allowed, one the rules deny; each prints one delta line.
        String command =
                "a=$("
                        + CLI
                        + " call weather '{\"city\":\"Paris\"}'); "
                        + "printf '{\"delta\":\"weather: %s (exit %s)\\\\n\"}\\n' \"$a\" \"$?\"; "
                        + CLI
                        + " call forecast '{\"city\":\"Paris\"}' >/dev/null 2>&1; "
                        + "printf '{\"delta\":\"forecast exit %s\\\\n\"}\\n' \"$?\"";
        String definition =
                "{\"sandbox\":{\"definitionId\":\""
                        + prefix
                        + "\"},\"harness\":\"command\",\"command\":"
                        + Json.createValue(command)
                        + ",\"destroyOnComplete\":true,\"tools\":["
                        + tool("weather")
                        + ","
                        + tool("forecast")
                        + "],\"approvals\":[{\"tool\":\"forecast\",\"decision\":\"deny\"}]}";
        define(agentId, definition);

        String runId = "r-" + UUID.randomUUID();
        List<AgentsIT.Event> events =
                AgentsIT.readSse(
                        api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                AgentsIT.input(
                                                        prefix + "-thread",
                                                        runId,
                                                        new String[] {"user", "m-1", "go"}))));
        String text =
                events.stream()
                        .filter(e -> e.name().equals("TEXT_MESSAGE_CONTENT"))
                        .map(e -> e.data().getString("delta"))
                        .collect(Collectors.joining());
        assertThat(events.get(events.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(text).isEqualTo("weather: sunny in Paris (exit 0)\nforecast exit 1\n");
        assertThat(posted).containsExactly("/weather {\"city\":\"Paris\"}");
        assertThat(events.stream().map(AgentsIT.Event::name))
                .as("each bridged call is in the stream")
                .contains("TOOL_CALL_START", "TOOL_CALL_RESULT");
        assertThat(
                        events.stream()
                                .filter(e -> e.name().equals("CUSTOM"))
                                .map(e -> e.data().getString("name")))
                .contains("approval.decided");
    }

    /**
     * AG-23: two client tool calls of one command, made at once, are two interrupts, and each AG-UI
     * run ends with one of them: the first with whichever was announced first, the continuation
     * that answers it with the other (already pending, or announced while it streams), the
     * continuation that answers that one with the run's end. The command gets both answers.
     */
    @Test
    void twoClientToolCallsAtOnceEndTwoAgUiRunsOneInterruptEach() {
        String twoAgent = prefix + "-two";
        String command =
                "("
                        + CLI
                        + " call pick_color '{}' > /tmp/color.out) & ("
                        + CLI
                        + " call pick_size '{}' > /tmp/size.out) & wait; "
                        + "printf '{\"delta\":\"color=%s size=%s\"}\\n' \"$(cat /tmp/color.out)\""
                        + " \"$(cat /tmp/size.out)\"";
        String definition =
                "{\"sandbox\":{\"definitionId\":\""
                        + prefix
                        + "-two\"},\"harness\":\"command\",\"command\":"
                        + Json.createValue(command)
                        + ",\"destroyOnComplete\":true}";
        define(twoAgent, definition);
        JsonArray tools =
                Json.createArrayBuilder()
                        .add(clientTool("pick_color"))
                        .add(clientTool("pick_size"))
                        .build();
        Map<String, String> answers = Map.of("pick_color", "teal", "pick_size", "large");
        String threadId = prefix + "-two-thread";
        try {
            String runId = "r-" + UUID.randomUUID();
            JsonObject first = interruptEnding(post(twoAgent, threadId, runId, tools, null));
            JsonObject second =
                    interruptEnding(
                            post(twoAgent, threadId, runId + "-2", tools, answer(first, answers)));
            assertThat(Set.of(toolOf(first), toolOf(second)))
                    .as("one interrupt per AG-UI run, each call once")
                    .containsExactlyInAnyOrder("pick_color", "pick_size");

            List<AgentsIT.Event> last =
                    post(twoAgent, threadId, runId + "-3", tools, answer(second, answers));
            AgentsIT.Event end = last.get(last.size() - 1);
            assertThat(end.name()).as(last.toString()).isEqualTo("RUN_FINISHED");
            assertThat(end.data().get("outcome")).as("the run's end, no interrupt").isNull();
            assertThat(AgentsIT.Event.text(last)).isEqualTo("color=teal size=large");
        } finally {
            api.send(api.request("/api/v1/agents/" + twoAgent, Api.TENANT_A).DELETE());
        }
    }

    /** Creates agent {@code agent} with {@code definition} (a 201). */
    private void define(String agent, String definition) {
        assertThat(
                        api.send(
                                        api.request("/api/v1/agents/" + agent, Api.TENANT_A)
                                                .header("Content-Type", "application/json")
                                                .PUT(
                                                        HttpRequest.BodyPublishers.ofString(
                                                                definition)))
                                .statusCode())
                .isEqualTo(201);
    }

    private static JsonObject clientTool(String name) {
        return Json.createObjectBuilder()
                .add("name", name)
                .add("description", "asks the user: " + name)
                .add("parameters", Json.createObjectBuilder().add("type", "object"))
                .build();
    }

    private List<AgentsIT.Event> post(
            String agent, String threadId, String runId, JsonArray tools, JsonValue resume) {
        return AgentsIT.readSse(
                api.request("/api/v1/agents/" + agent, Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        AgUiInterruptsIT.input(
                                                threadId, runId, tools, resume, "unused", "go"))));
    }

    /** The one interrupt an AG-UI run ended with. */
    private static JsonObject interruptEnding(List<AgentsIT.Event> events) {
        AgentsIT.Event end = events.get(events.size() - 1);
        assertThat(end.name()).as(events.toString()).isEqualTo("RUN_FINISHED");
        JsonObject outcome = end.data().getJsonObject("outcome");
        assertThat(outcome.getString("type")).as(events.toString()).isEqualTo("interrupt");
        JsonArray interrupts = outcome.getJsonArray("interrupts");
        assertThat(interrupts).as("one interrupt per AG-UI run").hasSize(1);
        return interrupts.getJsonObject(0);
    }

    private static String toolOf(JsonObject interrupt) {
        return interrupt.getJsonObject("metadata").getString("toolName");
    }

    /** The {@code resume} of the next input: {@code interrupt} answered with its tool's answer. */
    private static JsonValue answer(JsonObject interrupt, Map<String, String> answers) {
        return Json.createArrayBuilder()
                .add(
                        Json.createObjectBuilder()
                                .add("interruptId", interrupt.getString("id"))
                                .add("status", "resolved")
                                .add(
                                        "payload",
                                        Json.createObjectBuilder()
                                                .add("result", answers.get(toolOf(interrupt)))))
                .build();
    }
}
