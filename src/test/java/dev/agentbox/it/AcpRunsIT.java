package dev.agentbox.it;

import static dev.agentbox.it.AcpTurns.custom;
import static dev.agentbox.it.AcpTurns.last;
import static dev.agentbox.it.AcpTurns.text;
import static dev.agentbox.testing.AgUiAssert.assertValidAgUiLog;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code acp} harness with a {@code custom} agent: a scripted ACP agent on the protocol's own
 * SDK (src/test/node/acp-test-agent.mjs, bundled into one file), run by Node in the agents image.
 * Its prompt picks what it does, so every mapping, the permission path and the bounds are tried
 * through the real server, the real sandbox, the feeder and the journal (docs/acp.md; AC-01..AC-07,
 * AC-10).
 */
class AcpRunsIT {

    static final String AGENT_PATH = "/opt/acp-test/agent.mjs";
    private static byte[] bundle;

    private final Api api = Api.itServer();
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);

    @BeforeAll
    static void bundle() throws Exception {
        Path p =
                Path.of(System.getProperty("agentbox.it.node-dir", "src/test/node"))
                        .resolve("dist/acp-test-agent.bundle.mjs");
        assertThat(p).as("scripts/node-clients builds the ACP test agent").exists();
        bundle = Files.readAllBytes(p);
    }

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    /** A sandbox of the agents image without network, holding the test agent. */
    private String sandbox() {
        String key =
                sandboxes
                        .ensure(
                                "{\"definitionId\":\"acp-it\",\"image\":\"agentbox/sandbox:agents\","
                                        + "\"lifecycle\":{\"reuse\":\"none\"},\"policy\":{\"network\":\"none\"}}")
                        .getString("key");
        HttpResponse<String> put =
                api.send(
                        api.request(
                                        "/api/v1/sandboxes/" + key + "/files?path=" + AGENT_PATH,
                                        Api.TENANT_A)
                                .PUT(HttpRequest.BodyPublishers.ofByteArray(bundle)));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(204);
        return key;
    }

    private String start(String key, String prompt, String extra) {
        String runId = "acp-" + UUID.randomUUID();
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\",\"sandbox\":{\"key\":\""
                        + key
                        + "\"},\"harness\":\"acp\",\"prompt\":"
                        + Runs.jsonString(prompt)
                        + ",\"acp\":{\"agent\":\"custom\",\"command\":\"node\",\"args\":[\""
                        + AGENT_PATH
                        + "\"]}"
                        + extra
                        + "}");
        return runId;
    }

    private List<JsonObject> chunks(String runId) {
        return AcpTurns.chunks(runs, runId);
    }

    /** AC-01. */
    @Test
    void aTurnsTextAndSessionReachTheStreamAndTheRunCompletes() {
        String key = sandbox();
        String runId = start(key, "say hello world", "");
        List<JsonObject> chunks = chunks(runId);
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(chunks)).isEqualTo("hello world");
        assertThat(custom(chunks, "acp.session"))
                .singleElement()
                .satisfies(
                        c -> {
                            assertThat(c.getJsonObject("value").getString("sessionId"))
                                    .isNotBlank();
                            assertThat(c.getJsonObject("value").getBoolean("continued")).isFalse();
                        });
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
    }

    /** AC-02. */
    @Test
    void everyUpdateKindIsMappedAndOneFromALaterVersionIsPassedOn() {
        String key = sandbox();
        List<JsonObject> all = chunks(start(key, "all-kinds", ""));
        assertThat(last(all).getString("type")).as(all.toString()).isEqualTo("RUN_FINISHED");
        List<String> types = all.stream().map(c -> c.getString("type")).toList();
        assertThat(types)
                .contains(
                        "TEXT_MESSAGE_CONTENT",
                        "REASONING_MESSAGE_CONTENT",
                        "TOOL_CALL_START",
                        "TOOL_CALL_END",
                        "TOOL_CALL_RESULT");
        assertThat(custom(all, "acp.plan"))
                .singleElement()
                .satisfies(
                        c ->
                                assertThat(c.getJsonObject("value").getJsonArray("entries"))
                                        .hasSize(2));
        assertThat(
                        custom(all, "acp.update").stream()
                                .map(c -> c.getJsonObject("value").getString("sessionUpdate")))
                .contains("available_commands_update", "current_mode_update", "user_message_chunk");

        List<JsonObject> unknown = chunks(start(key, "unknown-kind", ""));
        assertThat(last(unknown).getString("type")).isEqualTo("RUN_FINISHED");
        assertThat(custom(unknown, "acp.update"))
                .anySatisfy(
                        c -> {
                            assertThat(c.getJsonObject("value").getString("sessionUpdate"))
                                    .isEqualTo("future_kind_x");
                            assertThat(
                                            c.getJsonObject("value")
                                                    .getJsonObject("payload")
                                                    .getInt("a"))
                                    .isEqualTo(1);
                        });
    }

    /** AC-03. */
    @Test
    void aPermissionTheRulesAskForIsAnInterruptAndItsAnswerDecides() throws Exception {
        String key = sandbox();
        String ask = ",\"approvals\":[{\"tool\":\"Write *\",\"decision\":\"ask\"}]";
        String approved = start(key, "write approved.txt yes", ask);
        JsonObject asked = pendingInterrupt(approved, "Write approved.txt");
        assertThat(asked.getJsonObject("arguments").getString("content")).isEqualTo("yes");
        HttpResponse<String> edited =
                api.send(
                        api.request(
                                        Runs.path(approved)
                                                + "/interrupts/"
                                                + asked.getString("id"),
                                        Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"status\":\"resolved\",\"payload\":{\"approved\":true,"
                                                        + "\"arguments\":{\"path\":\"other.txt\"}}}")));
        assertThat(edited.statusCode()).as("ACP has no edited arguments").isEqualTo(400);
        assertThat(edited.body()).contains("payload.arguments");
        answer(approved, asked, true);
        List<JsonObject> yes = chunks(approved);
        assertThat(last(yes).getString("type")).as(yes.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(yes)).isEqualTo("wrote");
        assertThat(custom(yes, "interrupt.requested")).hasSize(1);
        assertThat(yes)
                .anySatisfy(
                        c -> {
                            assertThat(c.getString("type")).isEqualTo("TOOL_CALL_RESULT");
                            assertThat(c.getString("content")).contains("+yes");
                        });
        assertThat(sandboxes.stdout(key, "cat /workspace/approved.txt")).isEqualTo("yes");

        String denied = start(key, "write denied.txt no", ask);
        answer(denied, pendingInterrupt(denied, "Write denied.txt"), false);
        List<JsonObject> no = chunks(denied);
        assertThat(text(no)).isEqualTo("not written");
        assertThat(sandboxes.execRaw(key, "test -e /workspace/denied.txt").body())
                .contains("\"exitCode\":1");

        // A deny rule decides at once: no interrupt.
        String ruled =
                start(
                        key,
                        "write ruled.txt no",
                        ",\"approvals\":[{\"tool\":\"Write *\",\"decision\":\"deny\"}]");
        List<JsonObject> refused = chunks(ruled);
        assertThat(text(refused)).isEqualTo("not written");
        assertThat(custom(refused, "interrupt.requested")).isEmpty();
    }

    /** AC-04. */
    @Test
    void aPromptErrorFailsTheRunWithTheAgentsMessageAndOtherStopsAreReported() {
        String key = sandbox();
        List<JsonObject> failed = chunks(start(key, "error", ""));
        assertThat(last(failed).getString("type")).isEqualTo("RUN_ERROR");
        assertThat(last(failed).getString("code")).isEqualTo("agent-error");
        assertThat(last(failed).getString("message")).contains("model API error: 401");

        List<JsonObject> refused = chunks(start(key, "refuse", ""));
        assertThat(custom(refused, "acp.stop"))
                .singleElement()
                .satisfies(
                        c ->
                                assertThat(c.getJsonObject("value").getString("stopReason"))
                                        .isEqualTo("refusal"));

        List<JsonObject> early = chunks(start(key, "exit-early", ""));
        assertThat(last(early).getString("type")).isEqualTo("RUN_ERROR");
        assertThat(last(early).getString("message")).contains("before it answered");
    }

    /** AC-05. */
    @Test
    void filesAndTerminalAreNotOfferedToTheAgent() {
        String key = sandbox();
        List<JsonObject> chunks = chunks(start(key, "fs", ""));
        assertThat(last(chunks).getString("type")).isEqualTo("RUN_FINISHED");
        assertThat(text(chunks)).contains("not offered");
    }

    /** AC-06. */
    @Test
    void malformedLinesAnOversizedLineAndAFloodAreBoundedAndTheServerGoesOn() {
        String key = sandbox();
        List<JsonObject> malformed = chunks(start(key, "malformed", ""));
        assertThat(last(malformed).getString("type")).isEqualTo("RUN_FINISHED");
        assertThat(text(malformed)).isEqualTo("survived");
        assertThat(custom(malformed, "agent.text")).isNotEmpty();

        String big = start(key, "bigline", "");
        List<JsonObject> bigChunks = chunks(big);
        assertThat(last(bigChunks).getString("type"))
                .as(last(bigChunks).toString())
                .isIn("RUN_FINISHED", "RUN_ERROR");
        JsonObject bigRun = runs.get(big);
        assertThat(bigRun.getString("status")).isIn("completed", "failed");

        String flood = start(key, "flood 100000", "");
        List<JsonObject> floodChunks = chunks(flood);
        assertThat(last(floodChunks).getString("type")).isEqualTo("RUN_FINISHED");
        assertThat(text(floodChunks)).hasSize(100000);

        // The server still runs a turn at once.
        List<JsonObject> after = chunks(start(key, "say still here", ""));
        assertThat(text(after)).isEqualTo("still here");
    }

    /** AC-07. */
    @Test
    void aCancelEndsTheTurnAndTheRunIsAborted() {
        String key = sandbox();
        String runId = start(key, "slow 60000", "");
        List<JsonObject> chunks = new java.util.ArrayList<>();
        try (SseClient sse = runs.events(runId, null)) {
            while (chunks.stream().noneMatch(c -> "started".equals(c.getString("delta", null)))) {
                SseClient.Event e = sse.next(java.time.Duration.ofSeconds(60));
                assertThat(e)
                        .as("the stream ended before the agent started: %s", chunks)
                        .isNotNull();
                chunks.add(Api.parse(e.data()));
            }
            assertThat(runs.cancel(runId).statusCode()).isBetween(200, 204);
            chunks.addAll(
                    Runs.drain(sse, java.time.Duration.ofSeconds(60)).stream()
                            .map(e -> Api.parse(e.data()))
                            .toList());
        }
        assertValidAgUiLog(chunks);
        assertThat(last(chunks).getString("type")).isEqualTo("RUN_ERROR");
        assertThat(text(chunks)).doesNotContain("finished");
        assertThat(runs.get(runId).getString("status")).isEqualTo("aborted");
        sandboxes.forget(key); // a cancel destroys the sandbox
    }

    private JsonObject pendingInterrupt(String runId, String tool) throws InterruptedException {
        JsonObject i =
                AcpTurns.pendingInterrupt(runs, runId, java.time.Duration.ofSeconds(60), () -> "");
        assertThat(i.getString("tool")).isEqualTo(tool);
        return i;
    }

    private void answer(String runId, JsonObject interrupt, boolean approved) {
        AcpTurns.answer(api, runId, interrupt.getString("id"), approved);
    }

    /**
     * AC-10: a thread's next turn through the agent endpoint continues the agent's ACP session: the
     * agent remembers the first prompt, and the second run reports the session continued.
     */
    @Test
    void aThreadsSecondTurnContinuesTheAgentsSession() throws Exception {
        String agentId = "acp-it-" + UUID.randomUUID().toString().substring(0, 8);
        String sandbox =
                "{\"definitionId\":\"acp-agent-it\",\"image\":\"agentbox/sandbox:agents\","
                        + "\"policy\":{\"network\":\"none\"}}";
        HttpResponse<String> put =
                api.send(
                        api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .PUT(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"sandbox\":"
                                                        + sandbox
                                                        + ",\"harness\":\"acp\",\"acp\":{\"agent\":\"custom\","
                                                        + "\"command\":\"node\",\"args\":[\""
                                                        + AGENT_PATH
                                                        + "\"]}}")));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        try {
            String thread = "acp-thread-" + UUID.randomUUID();
            // The thread's sandbox, as the agent's runs ensure it, with the agent in it.
            String key =
                    sandboxes
                            .ensure(
                                    sandbox.substring(0, sandbox.length() - 1)
                                            + ",\"threadId\":\""
                                            + thread
                                            + "\",\"lifecycle\":{\"reuse\":\"thread\"}}")
                            .getString("key");
            HttpResponse<String> upload =
                    api.send(
                            api.request(
                                            "/api/v1/sandboxes/"
                                                    + key
                                                    + "/files?path="
                                                    + AGENT_PATH,
                                            Api.TENANT_A)
                                    .PUT(HttpRequest.BodyPublishers.ofByteArray(bundle)));
            assertThat(upload.statusCode()).isEqualTo(204);

            String first = "r-" + UUID.randomUUID();
            List<AgentsIT.Event> one =
                    AgentsIT.readSse(
                            agentPost(
                                    agentId,
                                    AgentsIT.input(
                                            thread,
                                            first,
                                            new String[] {"user", "u-1", "say one"})));
            assertThat(AgentsIT.Event.text(one)).isEqualTo("one");

            String second = "r-" + UUID.randomUUID();
            List<AgentsIT.Event> two =
                    AgentsIT.readSse(
                            agentPost(
                                    agentId,
                                    AgentsIT.input(
                                            thread,
                                            second,
                                            new String[] {"user", "u-1", "say one"},
                                            new String[] {"assistant", "a-1", "one"},
                                            new String[] {"user", "u-2", "history"})));
            assertThat(AgentsIT.Event.text(two))
                    .as("the agent remembers the first turn; the prompt came alone")
                    .isEqualTo("say one");
            assertThat(two)
                    .anySatisfy(
                            e -> {
                                assertThat(e.name()).isEqualTo("CUSTOM");
                                assertThat(e.data().getString("name")).isEqualTo("acp.session");
                                assertThat(e.data().getJsonObject("value").getBoolean("continued"))
                                        .isTrue();
                            });
        } finally {
            api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
        }
    }

    private HttpRequest.Builder agentPost(String agentId, String body) {
        return api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }
}
