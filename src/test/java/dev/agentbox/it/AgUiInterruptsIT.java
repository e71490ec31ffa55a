package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Client tools and interrupts on the AG-UI agent endpoint (docs/api.md "Client tools and
 * interrupts"), with the real Claude Code against the scripted model behind a {@link ModelHost} and
 * the real JavaScript clients ({@code src/test/node/tanstack-client-tool.mjs}, {@code
 * agui-client-tool.mjs}) unmodified: a client tool's call ends the AG-UI run with an interrupt, the
 * client runs the tool and its next input carries the result, and the agent's continuation streams
 * as that new AG-UI run (AG-15). An {@code ask} approval likewise (AG-16), and the AG-UI rules:
 * input that leaves the interrupt unanswered is a {@code RUN_ERROR} (AG-17), the same answer twice
 * streams the same continuation (AG-18), the transcript shows the turn once (AG-19). Every AG-UI
 * run the clients read passes {@code agui-check.mjs}; the streams read here are saved for
 * verify-streams.mjs.
 */
class AgUiInterruptsIT {

    private static final String KEY = "sk-e2e-" + UUID.randomUUID();

    /** A client tool the person answers with a color. */
    static final JsonObject PICK_COLOR =
            Json.createObjectBuilder()
                    .add("name", "pick_color")
                    .add("description", "Asks the person for a color")
                    .add(
                            "parameters",
                            Json.createObjectBuilder()
                                    .add("type", "object")
                                    .add(
                                            "properties",
                                            Json.createObjectBuilder()
                                                    .add(
                                                            "hint",
                                                            Json.createObjectBuilder()
                                                                    .add("type", "string"))))
                    .build();

    private static ModelHost host;
    private static ScriptedModelServer model;

    private final Api api = Api.itServer();
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final NodeScripts node = new NodeScripts();
    private final Set<String> agents = ConcurrentHashMap.newKeySet();
    private final Set<String> threads = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void modelHost() throws Exception {
        host = ModelHost.start(KEY);
        model = host.model();
    }

    @AfterAll
    static void stop() {
        if (host != null) {
            host.close();
        }
        EgressWorld.removeGateways(EgressWorld.TENANT_A);
    }

    /**
     * Each test's sandboxes (one per thread: those of its threads' runs) and definitions go,
     * whether the test passed or not; the model forgets its script.
     */
    @AfterEach
    void cleanUp() {
        for (String threadId : threads) {
            for (JsonObject run :
                    Api.json(api.get("/api/v1/runs?threadId=" + threadId, Api.TENANT_A))
                            .asJsonArray()
                            .getValuesAs(JsonObject.class)) {
                if (run.get("sandboxKey") instanceof jakarta.json.JsonString key) {
                    sandboxes.delete(key.getString());
                }
            }
        }
        for (String agentId : agents) {
            api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
        }
        sandboxes.close();
        model.clearRequests();
        model.clearScript();
    }

    @Test
    void tanstackClientRunsTheClientToolAndTheContinuationCompletes_AG15() throws Exception {
        node.requireInstalled();
        String agentId = define("");
        model.enqueue(
                new Turn.ToolCall(
                        "mcp__agentbox__pick_color",
                        Json.createObjectBuilder().add("hint", "warm").build()),
                Turn.text("you picked teal"));
        String threadId = thread();
        NodeScripts.Result r =
                node.run(
                        "tanstack-client-tool.mjs",
                        base(agentId, threadId)
                                .add("prompt", "pick a color")
                                .add("tool", PICK_COLOR)
                                .add("output", Json.createObjectBuilder().add("color", "teal"))
                                .build(),
                        java.time.Duration.ofMinutes(5));
        JsonObject out = r.json();
        assertThat(r.exitCode()).as("%s", out).isZero();
        assertThat(out.getJsonArray("executed").getValuesAs(JsonObject.class))
                .as("the client tool ran once, with the agent's arguments: %s", out)
                .containsExactly(Json.createObjectBuilder().add("hint", "warm").build());
        List<JsonArray> agUiRuns = out.getJsonArray("runs").getValuesAs(JsonArray.class);
        assertThat(agUiRuns).as("%s", out).hasSize(2);
        JsonObject interrupted = last(agUiRuns.get(0));
        assertThat(interrupted.getString("type")).isEqualTo("RUN_FINISHED");
        JsonObject interrupt =
                interrupted.getJsonObject("outcome").getJsonArray("interrupts").getJsonObject(0);
        assertThat(interrupt.getString("reason")).isEqualTo("client_tool_input");
        assertThat(interrupt.getJsonObject("metadata").getString("kind")).isEqualTo("client_tool");
        assertThat(interrupt.getString("toolCallId")).startsWith("agentbox-tool-");
        assertThat(types(agUiRuns.get(0)))
                .containsSubsequence(
                        "TOOL_CALL_START",
                        "TOOL_CALL_END",
                        "STATE_SNAPSHOT",
                        "MESSAGES_SNAPSHOT",
                        "RUN_FINISHED");
        assertThat(last(agUiRuns.get(1)).get("outcome"))
                .as("the continuation completes")
                .isNotEqualTo(interrupted.get("outcome"));
        assertThat(text(agUiRuns.get(1))).contains("you picked teal");
        assertThat(out.getJsonArray("failures")).as("agui-check of each run").isEmpty();
        assertThat(lastModelRequest()).as("the model got the client's result").contains("teal");
    }

    @Test
    void agUiClientAnswersTheClientToolWithResumeAndTheContinuationCompletes_AG15() {
        node.requireInstalled();
        String agentId = define("");
        model.enqueue(
                new Turn.ToolCall(
                        "mcp__agentbox__pick_color",
                        Json.createObjectBuilder().add("hint", "cold").build()),
                Turn.text("you picked navy"));
        String threadId = thread();
        String runId = "r-" + UUID.randomUUID();
        NodeScripts.Result r =
                node.run(
                        "agui-client-tool.mjs",
                        base(agentId, threadId)
                                .add("runId", runId)
                                .add("prompt", "pick a color")
                                .add("tool", PICK_COLOR)
                                .add("output", "navy")
                                .build(),
                        java.time.Duration.ofMinutes(5));
        JsonObject out = r.json();
        assertThat(r.exitCode()).as("%s", out).isZero();
        assertThat(out.getJsonArray("interrupts").getJsonObject(0).getString("reason"))
                .isEqualTo("client_tool_input");
        List<JsonArray> agUiRuns = out.getJsonArray("runs").getValuesAs(JsonArray.class);
        assertThat(last(agUiRuns.get(1)).getString("type")).isEqualTo("RUN_FINISHED");
        assertThat(last(agUiRuns.get(1)).getString("runId")).isEqualTo(runId + "-2");
        assertThat(text(agUiRuns.get(1))).contains("you picked navy");
        assertThat(out.getJsonArray("failures")).as("agui-check of each run").isEmpty();
        assertThat(lastModelRequest()).contains("navy");
        // A replay of the first AG-UI run ends where it ended: at the interrupt.
        List<AgentsIT.Event> replay =
                AgentsIT.readSse(
                        api.request(
                                "/api/v1/agents/" + agentId + "/runs/" + runId + "/events",
                                Api.TENANT_A));
        assertThat(replay.get(replay.size() - 1).data().getJsonObject("outcome").getString("type"))
                .isEqualTo("interrupt");
    }

    @Test
    void tanstackClientApprovesTheBashCallItMarkedAsAwaitingApprovalAndItRuns_AG16_AG21()
            throws Exception {
        node.requireInstalled();
        String agentId = define(",\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]");
        model.enqueue(Turn.claudeBash("echo written > /workspace/tanstack.txt"), Turn.text("done"));
        String threadId = thread();
        NodeScripts.Result r =
                node.run(
                        "tanstack-client-tool.mjs",
                        base(agentId, threadId)
                                .add("prompt", "write the file")
                                .add("approve", true)
                                .build(),
                        java.time.Duration.ofMinutes(5));
        JsonObject out = r.json();
        assertThat(r.exitCode()).as("%s", out).isZero();
        List<JsonArray> agUiRuns = out.getJsonArray("runs").getValuesAs(JsonArray.class);
        assertThat(agUiRuns).as("%s", out).hasSize(2);
        String bashCall =
                agUiRuns.get(0).getValuesAs(JsonObject.class).stream()
                        .filter(c -> c.getString("type").equals("TOOL_CALL_START"))
                        .filter(c -> c.getString("toolCallName").equals("Bash"))
                        .map(c -> c.getString("toolCallId"))
                        .findFirst()
                        .orElseThrow();
        assertThat(out.getJsonArray("approvals").getValuesAs(JsonObject.class))
                .as(
                        "the client marked the Bash call as awaiting approval and the answer went"
                                + " through it (AG-21): %s",
                        out)
                .singleElement()
                .satisfies(
                        a -> {
                            assertThat(a.getString("via")).isEqualTo("tool-call");
                            assertThat(a.getString("toolCallId")).isEqualTo(bashCall);
                        });
        assertThat(out.getJsonArray("failures")).as("agui-check of each run").isEmpty();
        String runId =
                Api.json(api.get("/api/v1/runs?threadId=" + threadId, Api.TENANT_A))
                        .asJsonArray()
                        .getJsonObject(0)
                        .getString("runId");
        String key = runs.get(runId).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "cat /workspace/tanstack.txt")).contains("written");
    }

    @Test
    void anApprovedBashRunsAndTheRulesOfTheNextInputHold_AG16_AG17_AG18_AG19() throws Exception {
        String agentId = define(",\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]");
        model.enqueue(Turn.claudeBash("echo written > /workspace/approved.txt"), Turn.text("done"));
        String threadId = thread();
        String first = "r-" + UUID.randomUUID();
        List<AgentsIT.Event> interrupted = post(agentId, input(threadId, first, null));
        JsonObject finished = interrupted.get(interrupted.size() - 1).data();
        assertThat(finished.getString("type")).as("%s", interrupted).isEqualTo("RUN_FINISHED");
        JsonObject interrupt =
                finished.getJsonObject("outcome").getJsonArray("interrupts").getJsonObject(0);
        assertThat(interrupt.getString("reason")).isEqualTo("approval_required");
        assertThat(interrupt.getJsonObject("metadata").getString("toolName")).isEqualTo("Bash");
        assertThat(runs.get(first).getString("status")).isIn("running", "interrupted");

        // AG-17: a new input that does not answer the interrupt.
        List<AgentsIT.Event> refused =
                post(agentId, input(threadId, "r-" + UUID.randomUUID(), null));
        assertThat(refused).hasSize(1);
        assertThat(refused.get(0).name()).isEqualTo("RUN_ERROR");
        assertThat(refused.get(0).data().getString("code")).isEqualTo("INTERRUPT_PENDING");

        String second = "r-" + UUID.randomUUID();
        JsonValue approve = resume(interrupt.getString("id"), true);
        List<AgentsIT.Event> continued = post(agentId, input(threadId, second, approve));
        assertThat(continued.get(0).name()).isEqualTo("RUN_STARTED");
        assertThat(continued.get(0).data().getString("runId")).isEqualTo(second);
        JsonObject end = continued.get(continued.size() - 1).data();
        assertThat(end.getString("type")).as("%s", continued).isEqualTo("RUN_FINISHED");
        assertThat(end.getString("runId")).isEqualTo(second);
        assertThat(end.containsKey("outcome") && "interrupt".equals(outcome(end))).isFalse();
        String key = runs.get(first).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "cat /workspace/approved.txt")).contains("written");

        // AG-18: the same input again streams the same continuation; so does the same answer
        // under a new runId.
        List<AgentsIT.Event> again = post(agentId, input(threadId, second, approve));
        assertThat(types(again)).isEqualTo(types(continued));
        String third = "r-" + UUID.randomUUID();
        List<AgentsIT.Event> twice = post(agentId, input(threadId, third, approve));
        assertThat(twice.get(twice.size() - 1).name()).as("%s", twice).isEqualTo("RUN_FINISHED");
        assertThat(twice.get(twice.size() - 1).data().getString("runId")).isEqualTo(third);

        // The transcript shows the turn once: one user message, one assistant message.
        JsonObject transcript =
                Api.parse(
                        api.get("/api/v1/agents/" + agentId + "?threadId=" + threadId, Api.TENANT_A)
                                .body());
        assertThat(transcript.getJsonArray("messages")).hasSize(2);
    }

    @Test
    void aRefusedBashDoesNotRunAndTheAgentIsToldOfTheRefusal_AG16() throws Exception {
        String agentId = define(",\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]");
        model.enqueue(Turn.claudeBash("echo written > /workspace/refused.txt"), Turn.text("ok"));
        String threadId = thread();
        String first = "r-" + UUID.randomUUID();
        List<AgentsIT.Event> interrupted = post(agentId, input(threadId, first, null));
        JsonObject interrupt =
                interrupted
                        .get(interrupted.size() - 1)
                        .data()
                        .getJsonObject("outcome")
                        .getJsonArray("interrupts")
                        .getJsonObject(0);
        List<AgentsIT.Event> continued =
                post(
                        agentId,
                        input(
                                threadId,
                                "r-" + UUID.randomUUID(),
                                resume(interrupt.getString("id"), false)));
        assertThat(continued.get(continued.size() - 1).name())
                .as("%s", continued)
                .isEqualTo("RUN_FINISHED");
        String key = runs.get(first).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "test -e /workspace/refused.txt && echo yes || echo no"))
                .contains("no");
        assertThat(lastModelRequest()).contains("refused");
    }

    private String define(String approvals) {
        String agentId = "agui-int-" + UUID.randomUUID().toString().substring(0, 8);
        agents.add(agentId);
        define(api, agentId, KEY, approvals);
        return agentId;
    }

    /**
     * Defines Claude Code agent {@code agentId} in the egress sandbox of {@link #sandbox(String,
     * String)}, with {@code approvals} (a JSON member with its leading comma, or empty).
     */
    static void define(Api api, String agentId, String key, String approvals) {
        HttpResponse<String> put =
                api.send(
                        api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .PUT(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"sandbox\":"
                                                        + sandbox(agentId, key)
                                                        + ",\"harness\":\"claude-code\""
                                                        + approvals
                                                        + "}")));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
    }

    /**
     * Claude Code's egress sandbox reaching only the model host (key {@code key}), trusting its
     * test CA; the key comes with each input, not with the definition.
     */
    static String sandbox(String definitionId, String key) {
        try {
            String ca =
                    Files.readString(Path.of("src/test/resources/egress-test-tls/ca.pem")).strip();
            JsonObject body = Api.parse(ModelHost.claudeSandbox(definitionId, key));
            JsonObject workspace = body.getJsonObject("workspace");
            JsonObjectBuilder w = Json.createObjectBuilder(workspace).remove("secrets");
            w.add(
                    "setup",
                    Json.createArrayBuilder()
                            .add(
                                    "for f in /etc/agentbox/egress-ca.pem /etc/agentbox/ca-bundle.pem;"
                                            + " do printf '%s\\n' "
                                            + ShellQuote.single(ca)
                                            + " >> \"$f\"; done"));
            return Json.createObjectBuilder(body)
                    .remove("lifecycle")
                    .add("workspace", w)
                    .build()
                    .toString();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private JsonObjectBuilder base(String agentId, String threadId) {
        return Json.createObjectBuilder()
                .add("baseUrl", api.baseUrl())
                .add("token", Api.TENANT_A)
                .add("agentId", agentId)
                .add("threadId", threadId)
                .add("secrets", Json.createObjectBuilder().add("ANTHROPIC_API_KEY", KEY));
    }

    private static String input(String threadId, String runId, JsonValue resume) {
        return input(threadId, runId, JsonValue.EMPTY_JSON_ARRAY, resume, KEY, "write the file");
    }

    /**
     * An AG-UI input of thread {@code threadId} (one user message, {@code prompt}) offering {@code
     * tools}, with the model key {@code key} brokered per input ({@code forwardedProps}), and
     * {@code resume} when not null.
     */
    static String input(
            String threadId,
            String runId,
            JsonValue tools,
            JsonValue resume,
            String key,
            String prompt) {
        return input(threadId, runId, tools, resume, "ANTHROPIC_API_KEY", key, prompt);
    }

    /** As above, the key given as {@code keyVariable} (e.g. Codex's {@code OPENAI_API_KEY}). */
    static String input(
            String threadId,
            String runId,
            JsonValue tools,
            JsonValue resume,
            String keyVariable,
            String key,
            String prompt) {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("threadId", threadId)
                        .add("runId", runId)
                        .add(
                                "messages",
                                Json.createArrayBuilder()
                                        .add(
                                                Json.createObjectBuilder()
                                                        .add("id", threadId + "-u1")
                                                        .add("role", "user")
                                                        .add("content", prompt)))
                        .add("tools", tools)
                        .add(
                                "forwardedProps",
                                Json.createObjectBuilder()
                                        .add(
                                                "agentbox",
                                                Json.createObjectBuilder()
                                                        .add(
                                                                "secrets",
                                                                Json.createObjectBuilder()
                                                                        .add(keyVariable, key))));
        if (resume != null) {
            b.add("resume", resume);
        }
        return b.build().toString();
    }

    private static JsonValue resume(String interruptId, boolean approved) {
        return Json.createArrayBuilder()
                .add(
                        Json.createObjectBuilder()
                                .add("interruptId", interruptId)
                                .add("status", "resolved")
                                .add(
                                        "payload",
                                        Json.createObjectBuilder().add("approved", approved)))
                .build();
    }

    private List<AgentsIT.Event> post(String agentId, String body) {
        return AgentsIT.readSse(
                api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** A new thread, whose sandbox the test's clean-up deletes. */
    private String thread() {
        String threadId = "t-" + UUID.randomUUID();
        threads.add(threadId);
        return threadId;
    }

    private String lastModelRequest() {
        List<ScriptedModelServer.RecordedRequest> asked = model.modelRequests();
        return asked.get(asked.size() - 1).body();
    }

    private static String outcome(JsonObject runFinished) {
        return runFinished.get("outcome") instanceof JsonObject o ? o.getString("type", "") : "";
    }

    private static JsonObject last(JsonArray chunks) {
        return chunks.getJsonObject(chunks.size() - 1);
    }

    private static List<String> types(JsonArray chunks) {
        return chunks.getValuesAs(JsonObject.class).stream().map(c -> c.getString("type")).toList();
    }

    private static List<String> types(List<AgentsIT.Event> events) {
        return events.stream().map(AgentsIT.Event::name).toList();
    }

    private static String text(JsonArray chunks) {
        StringBuilder b = new StringBuilder();
        for (JsonObject c : chunks.getValuesAs(JsonObject.class)) {
            if ("TEXT_MESSAGE_CONTENT".equals(c.getString("type"))) {
                b.append(c.getString("delta"));
            }
        }
        return b.toString();
    }
}
