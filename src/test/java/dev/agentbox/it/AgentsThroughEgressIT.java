package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real Claude Code and Codex CLIs, run by agentbox's harnesses in {@code
 * agentbox/sandbox:agents} sandboxes with network {@code egress}, reaching a scripted model API
 * through their tenant's gateway with a brokered key (docs/egress.md; EG-08, EG-10): the sandbox
 * holds a placeholder, the model server receives the real key.
 *
 * <p>The model host is a {@link ModelHost}: nothing leaves this machine.
 */
class AgentsThroughEgressIT {

    static final String MODEL_HOST = ModelHost.NAME;
    private static final String KEY = "sk-e2e-" + UUID.randomUUID();
    private static final String PLACEHOLDER = "agentbox-brokered-[0-9a-f]{40}";

    private static ModelHost host;
    private static ScriptedModelServer model;

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
        if (host != null) {
            host.close();
        }
        EgressWorld.removeGateways(EgressWorld.TENANT_A);
    }

    @AfterEach
    void cleanUp() {
        sandboxes.close();
        model.clearRequests();
        model.clearScript();
    }

    private static String sandbox(
            String definitionId, String keyVariable, String env, String setup) {
        return ModelHost.sandbox(definitionId, keyVariable, KEY, env, setup);
    }

    private static String claudeSandbox(String definitionId) {
        return ModelHost.claudeSandbox(definitionId, KEY);
    }

    /** Codex's endpoint is in its configuration file: written by a setup step. */
    private static String codexSandbox(String definitionId) {
        List<String> config = ScriptedModelServer.codexConfig("https://" + MODEL_HOST + "/v1", 0);
        String write =
                "mkdir -p \"$HOME/.codex\" && printf '%s\\n' '"
                        + String.join("' '", config)
                        + "' > \"$HOME/.codex/config.toml\"";
        return sandbox(definitionId, "OPENAI_API_KEY", "", Json.createValue(write).toString());
    }

    private String run(String runId, String harness, String sandbox, String prompt, String extra) {
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\",\"harness\":\""
                        + harness
                        + "\",\"prompt\":"
                        + Runs.jsonString(prompt)
                        + ",\"sandbox\":"
                        + sandbox
                        + extra
                        + "}");
        return runId;
    }

    private List<SseClient.Event> transcript(String runId) {
        return runs.transcript(runId, null);
    }

    private static String text(List<SseClient.Event> events) {
        StringBuilder b = new StringBuilder();
        for (SseClient.Event e : events) {
            if ("TEXT_MESSAGE_CONTENT".equals(e.name())) {
                b.append(
                        Json.createReader(new java.io.StringReader(e.data()))
                                .readObject()
                                .getString("delta"));
            }
        }
        return b.toString();
    }

    private static String last(List<SseClient.Event> events) {
        return events.get(events.size() - 1).name();
    }

    @Test
    void claudeCodeAnswersThroughTheGatewayWithAKeyItNeverHolds() {
        model.enqueue(Turn.text("hello from the scripted model"));
        String runId =
                run(
                        "e2e-claude-text-" + UUID.randomUUID(),
                        "claude-code",
                        claudeSandbox("e2e-claude"),
                        "say hello",
                        "");
        List<SseClient.Event> events = transcript(runId);
        assertThat(last(events)).as(events.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(events)).contains("hello from the scripted model");
        assertThat(model.modelRequests()).isNotEmpty();
        assertThat(model.modelRequests())
                .allSatisfy(r -> assertThat(r.header("x-api-key")).contains(KEY));
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        String key = record.getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "printf %s \"$ANTHROPIC_API_KEY\"")).matches(PLACEHOLDER);
        sandboxes.forget(key);
        sandboxes.delete(key);
    }

    @Test
    void claudeCodeEditsAWorkspaceFileWithItsBashTool() {
        model.enqueue(
                Turn.claudeBash("echo changed-by-claude > /workspace/notes.txt"),
                Turn.text("done"));
        String runId =
                run(
                        "e2e-claude-tool-" + UUID.randomUUID(),
                        "claude-code",
                        claudeSandbox("e2e-claude-tool"),
                        "change notes.txt",
                        "");
        List<SseClient.Event> events = transcript(runId);
        assertThat(last(events)).as(events.toString()).isEqualTo("RUN_FINISHED");
        assertThat(events).anyMatch(e -> e.name().equals("TOOL_CALL_START"));
        String key = runs.get(runId).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "cat /workspace/notes.txt")).contains("changed-by-claude");
        sandboxes.forget(key);
        sandboxes.delete(key);
    }

    @Test
    void aModelApiErrorEndsTheRunWithAnAgentError() {
        model.enqueue(Turn.serverError("the scripted model is down"));
        String runId =
                run(
                        "e2e-claude-error-" + UUID.randomUUID(),
                        "claude-code",
                        claudeSandbox("e2e-claude-error"),
                        "say hello",
                        ",\"destroyOnComplete\":true");
        List<SseClient.Event> events = transcript(runId);
        assertThat(last(events)).as(events.toString()).isEqualTo("RUN_ERROR");
        assertThat(runs.get(runId).getString("status")).isEqualTo("failed");
    }

    @Test
    void cancellingARunStopsTheRealCliAndItsSandbox() throws Exception {
        model.enqueue(Turn.claudeBash("sleep 120"), Turn.text("never"));
        String runId =
                run(
                        "e2e-claude-cancel-" + UUID.randomUUID(),
                        "claude-code",
                        claudeSandbox("e2e-claude-cancel"),
                        "wait",
                        "");
        try (SseClient sse = runs.events(runId, null)) {
            SseClient.Event e;
            do {
                e = sse.next(Duration.ofSeconds(60));
            } while (e != null && !"TOOL_CALL_START".equals(e.name()));
            assertThat(e).as("the CLI started its tool").isNotNull();
            assertThat(runs.cancel(runId).statusCode()).isEqualTo(202);
            List<SseClient.Event> rest = Runs.drain(sse, Duration.ofSeconds(60));
            assertThat(rest).isNotEmpty();
            assertThat(rest.get(rest.size() - 1).name()).isEqualTo("RUN_ERROR");
        }
        assertThat(runs.get(runId).getString("status")).isEqualTo("aborted");
    }

    @Test
    void codexAnswersAndRunsACommandThroughTheGatewayWithAKeyItNeverHolds() {
        model.enqueue(
                Turn.codexExec("echo changed-by-codex > /workspace/notes.txt"),
                Turn.text("done by codex"));
        String runId =
                run(
                        "e2e-codex-" + UUID.randomUUID(),
                        "codex",
                        codexSandbox("e2e-codex"),
                        "change notes.txt",
                        "");
        List<SseClient.Event> events = transcript(runId);
        assertThat(last(events)).as(events.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(events)).contains("done by codex");
        assertThat(model.modelRequests()).isNotEmpty();
        assertThat(model.modelRequests())
                .allSatisfy(r -> assertThat(r.header("authorization")).contains("Bearer " + KEY));
        String key = runs.get(runId).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "cat /workspace/notes.txt")).contains("changed-by-codex");
        assertThat(sandboxes.stdout(key, "printf %s \"$OPENAI_API_KEY\"")).matches(PLACEHOLDER);
        sandboxes.forget(key);
        sandboxes.delete(key);
    }
}
