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
 * The real Gemini CLI of the agents image ({@code gemini --acp}) through the {@code acp} harness:
 * the model is the scripted Gemini API behind a {@link ModelHost}, reached through the sandbox's
 * egress gateway at {@code GOOGLE_GEMINI_BASE_URL} with {@code GEMINI_API_KEY} brokered, the model
 * named ({@code GEMINI_MODEL}, so no router call) and the image's system settings keeping it from
 * every other host: a text turn, a command the rules ask for, and a model error. AC-15.
 *
 * <p>Gemini sends its key in {@code x-goog-api-key}: the gateway swaps a brokered placeholder in
 * that header as in {@code Authorization} and {@code X-Api-Key} (AC-15).
 */
class AcpGeminiIT {

    private static final String KEY = "gm-acp-" + UUID.randomUUID();
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

    /** An egress sandbox whose Gemini endpoint is the model host, with the key brokered. */
    static String geminiSandbox(String definitionId, String key) {
        return ModelHost.sandbox(
                definitionId,
                "GEMINI_API_KEY",
                key,
                "\"GOOGLE_GEMINI_BASE_URL\":\"https://"
                        + ModelHost.NAME
                        + "\",\"GEMINI_MODEL\":\"gemini-2.5-flash\"",
                "");
    }

    private String start(String prompt, String extra) {
        String runId = made.track("acp-gemini-" + UUID.randomUUID());
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\",\"harness\":\"acp\",\"acp\":{\"agent\":\"gemini\"},\"prompt\":"
                        + Runs.jsonString(prompt)
                        + ",\"sandbox\":"
                        + geminiSandbox("acp-gemini", KEY)
                        + extra
                        + "}");
        return runId;
    }

    private List<JsonObject> chunks(String runId) {
        return AcpTurns.chunks(runs, runId);
    }

    /** a text turn, and the model asked for nothing but the named model's turns. */
    @Test
    void geminiAnswersATurnAndReachesNothingButItsModel() {
        model.enqueue(Turn.text("Hello from gemini."));
        String runId = start("say hello", "");
        List<JsonObject> chunks = chunks(runId);
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(chunks)).contains("Hello from gemini.");
        assertThat(chunks)
                .anySatisfy(
                        c -> {
                            assertThat(c.getString("type")).isEqualTo("CUSTOM");
                            assertThat(c.getString("name")).isEqualTo("acp.session");
                        });
        assertThat(chunks)
                .as("gemini reaches nothing but the model")
                .noneSatisfy(c -> assertThat(c.getString("name", "")).startsWith("egress."));
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
        assertThat(model.requests())
                .as("one streamed turn of the named model, no router call")
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.path())
                                    .isEqualTo(
                                            "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
                            assertThat(r.header("x-goog-api-key")).contains(KEY);
                        });
    }

    /** a command an {@code ask} rule matches waits for its interrupt; approved, it runs. */
    @Test
    void anApprovedCommandOfGeminiRunsAfterItsInterrupt() throws Exception {
        model.enqueue(
                Turn.geminiShell("echo acp-gemini-approved > /workspace/approved.txt"),
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
                .contains("acp-gemini-approved");
    }

    /** a model error (HTTP 400, which Gemini does not retry) ends the run agent-error. */
    @Test
    void aModelErrorEndsTheRunWithTheAgentsError() {
        model.enqueue(Turn.badRequest("scripted failure"));
        long started = System.nanoTime();
        List<JsonObject> chunks = chunks(start("fail please", ""));
        assertThat(last(chunks).getString("type")).as(chunks.toString()).isEqualTo("RUN_ERROR");
        assertThat(last(chunks).getString("code")).isEqualTo("agent-error");
        assertThat(System.nanoTime() - started).isLessThan(60_000_000_000L);
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
