package dev.agentbox.it;

import static dev.agentbox.it.AcpTurns.last;
import static dev.agentbox.it.AcpTurns.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real {@code codex-acp} of the agents image through the {@code acp} harness (AC-14): the model
 * is the scripted Responses API behind a {@link ModelHost}, reached through the sandbox's egress
 * gateway at {@code OPENAI_BASE_URL} with {@code OPENAI_API_KEY} brokered, so nothing leaves this
 * machine and the sandbox never holds the key: a text turn, and a command the rules ask for (Codex
 * in its asking mode {@code read-only} asks before it runs a command outside its sandbox).
 */
class AcpCodexIT {

    private static final String KEY = "sk-acp-codex-" + UUID.randomUUID();
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

    /** An egress sandbox whose Codex provider is the model host, with the key brokered. */
    static String codexSandbox(String definitionId, String key) {
        return ModelHost.sandbox(
                definitionId,
                "OPENAI_API_KEY",
                key,
                "\"OPENAI_BASE_URL\":\"https://" + ModelHost.NAME + "/v1\"",
                "");
    }

    private String start(String prompt, String extra) {
        String runId = made.track("acp-codex-" + UUID.randomUUID());
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\",\"harness\":\"acp\",\"acp\":{\"agent\":\"codex\"},\"prompt\":"
                        + Runs.jsonString(prompt)
                        + ",\"sandbox\":"
                        + codexSandbox("acp-codex", KEY)
                        + extra
                        + "}");
        return runId;
    }

    private List<JsonObject> chunks(String runId) {
        return AcpTurns.chunks(runs, runId);
    }

    /** AC-14: a text turn, with the real key reaching the model and never the sandbox. */
    @Test
    void codexThroughItsAcpAgentAnswersATurnWithABrokeredKey() {
        model.enqueue(Turn.text("Hello from codex-acp."));
        String runId = start("say hello", ",\"destroyOnComplete\":false");
        List<JsonObject> chunks = chunks(runId);
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(chunks)).contains("Hello from codex-acp.");
        assertThat(chunks)
                .anySatisfy(
                        c -> {
                            assertThat(c.getString("type")).isEqualTo("CUSTOM");
                            assertThat(c.getString("name")).isEqualTo("acp.session");
                        });
        assertThat(chunks)
                .as("codex-acp reaches nothing but the model")
                .noneSatisfy(c -> assertThat(c.getString("name", "")).startsWith("egress."));
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
        assertThat(model.modelRequests()).as(model.requests().toString()).isNotEmpty();
        assertThat(model.modelRequests().get(0).path()).isEqualTo("/v1/responses");
        assertThat(model.modelRequests().get(0).header("Authorization")).contains("Bearer " + KEY);
        assertThat(model.requests())
                .as("nothing but the model API is asked for")
                .allSatisfy(r -> assertThat(r.path()).startsWith("/v1/"));
        String key = runs.get(runId).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "printenv OPENAI_API_KEY"))
                .as("the sandbox holds a placeholder, not the key")
                .doesNotContain(KEY);
    }

    /** AC-14: a command an {@code ask} rule matches waits for its interrupt; approved, it runs. */
    @Test
    void anApprovedCommandOfCodexRunsAfterItsInterrupt() throws Exception {
        model.enqueue(
                Turn.codexEscalatedExec("echo acp-codex-approved > /workspace/approved.txt"),
                Turn.text("done"));
        String runId =
                start(
                        "write the file",
                        ",\"destroyOnComplete\":false,\"approvals\":[{\"tool\":\"*\",\"decision\":\"ask\"}]");
        JsonObject interrupt = pendingInterrupt(runId);
        answer(runId, interrupt.getString("id"), true);
        List<JsonObject> chunks = chunks(runId);
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(chunks)).contains("done");
        String key = runs.get(runId).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "cat /workspace/approved.txt"))
                .contains("acp-codex-approved");
    }

    private JsonObject pendingInterrupt(String runId) throws InterruptedException {
        return AcpTurns.pendingInterrupt(
                runs,
                runId,
                java.time.Duration.ofSeconds(180),
                () -> "model requests: " + model.requests());
    }

    private void answer(String runId, String id, boolean approved) {
        AcpTurns.answer(api, runId, id, approved);
    }
}
