package dev.agentbox.it;

import static dev.agentbox.it.AcpTurns.last;
import static dev.agentbox.it.AcpTurns.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real {@code claude-code-acp} of the agents image, driving the image's own Claude Code,
 * through the {@code acp} harness (AC-13): the model is the scripted one behind a {@link
 * ModelHost}, reached through the sandbox's egress gateway with the key brokered, so nothing leaves
 * this machine and the sandbox never holds the key: a text turn, a command the rules ask for, a
 * model error, and a thread's second turn that resumes the session.
 */
class AcpClaudeIT {

    private static final String KEY = "sk-acp-" + UUID.randomUUID();
    private static ModelHost host;
    private static ScriptedModelServer model;
    private static final RunSandboxes made =
            new RunSandboxes(Api.itServer(), Api.TENANT_A, EgressWorld.TENANT_A);

    private final Api api = Api.itServer();
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);

    @BeforeAll
    static void modelHost() throws Exception {
        host = ModelHost.start(KEY);
        model = host.model();
    }

    @AfterAll
    static void stop() {
        try {
            made.destroyAll();
        } finally {
            if (host != null) {
                host.close();
            }
            EgressWorld.removeGateways(EgressWorld.TENANT_A);
        }
    }

    @AfterEach
    void cleanUp() {
        sandboxes.close();
        model.clearRequests();
        model.clearScript();
    }

    private String start(String prompt, String extra) {
        String runId = made.track("acp-claude-" + UUID.randomUUID());
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\",\"harness\":\"acp\",\"acp\":{\"agent\":\"claude\"},\"prompt\":"
                        + Runs.jsonString(prompt)
                        + ",\"sandbox\":"
                        + ModelHost.claudeSandbox("acp-claude", KEY)
                        + extra
                        + "}");
        return runId;
    }

    private List<JsonObject> chunks(String runId) {
        return AcpTurns.chunks(runs, runId);
    }

    @Test
    void claudeCodeThroughItsAcpAdapterAnswersATurn() {
        model.enqueue(Turn.text("Hello from the ACP side."));
        String runId = start("say hello", "");
        List<JsonObject> chunks = chunks(runId);
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(chunks)).contains("Hello from the ACP side.");
        assertThat(chunks)
                .anySatisfy(
                        c -> {
                            assertThat(c.getString("type")).isEqualTo("CUSTOM");
                            assertThat(c.getString("name")).isEqualTo("acp.session");
                        });
        assertThat(model.modelRequests()).isNotEmpty();
        assertThat(model.modelRequests().get(0).header("X-Api-Key")).contains(KEY);
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
    }

    @Test
    void anApprovedCommandOfClaudeCodeRunsAndItsResultReachesTheStream() throws Exception {
        model.enqueue(
                Turn.claudeBash("echo acp-approved > /workspace/approved.txt"), Turn.text("done"));
        String runId =
                start(
                        "write the file",
                        ",\"destroyOnComplete\":false,\"approvals\":[{\"tool\":\"*\",\"decision\":\"ask\"}]");
        JsonObject interrupt = pendingInterrupt(runId);
        answer(runId, interrupt.getString("id"), true);
        List<JsonObject> chunks = chunks(runId);
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_FINISHED");
        assertThat(chunks)
                .anySatisfy(c -> assertThat(c.getString("type")).isEqualTo("TOOL_CALL_RESULT"));
        String key = runs.get(runId).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "cat /workspace/approved.txt")).contains("acp-approved");
    }

    @Test
    void aModelErrorEndsTheRunWithTheAgentsError() {
        model.enqueue(Turn.serverError("scripted failure"));
        List<JsonObject> chunks = chunks(start("fail please", ""));
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_ERROR");
        assertThat(last(chunks).getString("code")).isEqualTo("agent-error");
    }

    private JsonObject pendingInterrupt(String runId) throws InterruptedException {
        return AcpTurns.pendingInterrupt(
                runs,
                runId,
                java.time.Duration.ofSeconds(180),
                () -> runs.transcript(runId, null).toString());
    }

    private void answer(String runId, String id, boolean approved) {
        AcpTurns.answer(api, runId, id, approved);
    }

    /**
     * A thread's second turn through the agent endpoint resumes Claude's session: the model sees
     * the first turn's words again, and the prompt came alone (no transcript).
     */
    @Test
    void aThreadsSecondTurnResumesClaudesSession() {
        String agentId = "acp-claude-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> put =
                api.send(
                        api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .PUT(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"sandbox\":"
                                                        + AgUiInterruptsIT.sandbox(agentId, KEY)
                                                        + ",\"harness\":\"acp\",\"acp\":{\"agent\":\"claude\"}}")));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        try {
            String thread = "t-" + agentId;
            model.enqueue(Turn.text("noted"));
            List<AgentsIT.Event> one =
                    AgentsIT.readSse(
                            agentPost(
                                    agentId,
                                    input(
                                            thread,
                                            made.track("acp-claude-r1-" + UUID.randomUUID()),
                                            "user",
                                            "u-1",
                                            "remember the word pelican")));
            assertThat(AgentsIT.Event.text(one)).isEqualTo("noted");
            model.clearRequests();
            model.enqueue(Turn.text("pelican"));
            List<AgentsIT.Event> two =
                    AgentsIT.readSse(
                            agentPost(
                                    agentId,
                                    input(
                                            thread,
                                            made.track("acp-claude-r2-" + UUID.randomUUID()),
                                            "user",
                                            "u-1",
                                            "remember the word pelican",
                                            "assistant",
                                            "a-1",
                                            "noted",
                                            "user",
                                            "u-2",
                                            "which word?")));
            assertThat(AgentsIT.Event.text(two)).isEqualTo("pelican");
            assertThat(two)
                    .anySatisfy(
                            e -> {
                                assertThat(e.name()).isEqualTo("CUSTOM");
                                assertThat(e.data().getString("name")).isEqualTo("acp.session");
                                assertThat(e.data().getJsonObject("value").getBoolean("continued"))
                                        .isTrue();
                            });
            String asked = model.modelRequests().get(model.modelRequests().size() - 1).body();
            assertThat(asked)
                    .as("the resumed session carries the first turn")
                    .contains("remember the word pelican", "which word?")
                    .doesNotContain("[Conversation so far]");
        } finally {
            api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
        }
    }

    private HttpRequest.Builder agentPost(String agentId, String body) {
        return api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    /** A RunAgentInput of {@code messages} (role, id, text, …) with the model key for the run. */
    private static String input(String thread, String runId, String... messages) {
        jakarta.json.JsonArrayBuilder a = jakarta.json.Json.createArrayBuilder();
        for (int i = 0; i < messages.length; i += 3) {
            a.add(
                    jakarta.json.Json.createObjectBuilder()
                            .add("role", messages[i])
                            .add("id", messages[i + 1])
                            .add("content", messages[i + 2]));
        }
        return jakarta.json.Json.createObjectBuilder()
                .add("threadId", thread)
                .add("runId", runId)
                .add("messages", a)
                .add("tools", jakarta.json.JsonValue.EMPTY_JSON_ARRAY)
                .add("context", jakarta.json.JsonValue.EMPTY_JSON_ARRAY)
                .add("state", jakarta.json.JsonValue.EMPTY_JSON_OBJECT)
                .add(
                        "forwardedProps",
                        jakarta.json.Json.createObjectBuilder()
                                .add(
                                        "agentbox",
                                        jakarta.json.Json.createObjectBuilder()
                                                .add(
                                                        "secrets",
                                                        jakarta.json.Json.createObjectBuilder()
                                                                .add("ANTHROPIC_API_KEY", KEY))))
                .build()
                .toString();
    }
}
