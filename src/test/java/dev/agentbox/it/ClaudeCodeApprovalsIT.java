package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.JsonArray;
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
 * The real Claude Code asks the run's approval rules before running its own {@code Bash}: the run's
 * tool bridge offers the permission prompt tool, an {@code ask} rule opens an interrupt listed on
 * the run, and the answer decides whether the command runs (docs/api.md "Tools"). The model is the
 * scripted one behind a {@link ModelHost}: nothing leaves this machine.
 */
class ClaudeCodeApprovalsIT {

    private static final String KEY = "sk-e2e-" + UUID.randomUUID();
    private static final String ASK_BASH =
            ",\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]";

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

    /** Also the sandboxes of runs whose test failed before deleting them. */
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

    private String start(String prefix, String file) {
        model.enqueue(Turn.claudeBash("echo written > /workspace/" + file), Turn.text("done"));
        String runId = made.track(prefix + UUID.randomUUID());
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\",\"harness\":\"claude-code\",\"prompt\":\"write the file\","
                        + "\"sandbox\":"
                        + ModelHost.claudeSandbox("e2e-approvals", KEY)
                        + ASK_BASH
                        + "}");
        return runId;
    }

    /** The run's one pending interrupt, once Claude Code has asked. */
    private JsonObject pendingInterrupt(String runId) throws InterruptedException {
        long deadline = System.nanoTime() + 180_000_000_000L;
        while (System.nanoTime() < deadline) {
            JsonObject run = runs.get(runId);
            if (!List.of("running", "interrupted").contains(run.getString("status"))) {
                throw new AssertionError(
                        "the run ended without asking: " + runs.transcript(runId, null));
            }
            if (run.get("interrupts") instanceof JsonArray a && !a.isEmpty()) {
                assertThat(a).hasSize(1);
                return a.getJsonObject(0);
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no interrupt listed on " + runId + ": " + runs.get(runId));
    }

    private void answer(String runId, String id, boolean approved) {
        HttpResponse<String> r =
                api.send(
                        api.request(Runs.path(runId) + "/interrupts/" + id, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"status\":\"resolved\",\"payload\":{\"approved\":"
                                                        + approved
                                                        + "}}")));
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 204);
    }

    private static boolean custom(SseClient.Event e, String name) {
        return e.name().equals("CUSTOM") && Api.parse(e.data()).getString("name", "").equals(name);
    }

    @Test
    void anApprovedBashRunsAfterThePersonAnswersItsInterrupt() throws Exception {
        String runId = start("e2e-approve-yes-", "approved.txt");
        JsonObject interrupt = pendingInterrupt(runId);
        assertThat(interrupt.getString("tool")).isEqualTo("Bash");
        assertThat(interrupt.getJsonObject("arguments").getString("command"))
                .contains("approved.txt");

        answer(runId, interrupt.getString("id"), true);

        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events.get(events.size() - 1).name())
                .as(events.toString())
                .isEqualTo("RUN_FINISHED");
        assertThat(events).anyMatch(e -> custom(e, "interrupt.requested"));
        assertThat(events).anyMatch(e -> custom(e, "approval.decided"));
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record).doesNotContainKey("interrupts");
        String key = record.getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "cat /workspace/approved.txt")).contains("written");
        sandboxes.forget(key);
        sandboxes.delete(key);
    }

    @Test
    void aRefusedBashDoesNotRunAndTheModelIsToldOfTheRefusal() throws Exception {
        String runId = start("e2e-approve-no-", "refused.txt");
        JsonObject interrupt = pendingInterrupt(runId);

        answer(runId, interrupt.getString("id"), false);

        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events.get(events.size() - 1).name())
                .as(events.toString())
                .isEqualTo("RUN_FINISHED");
        String key = runs.get(runId).getString("sandboxKey");
        assertThat(sandboxes.stdout(key, "test -e /workspace/refused.txt && echo yes || echo no"))
                .contains("no");
        List<ScriptedModelServer.RecordedRequest> asked = model.modelRequests();
        assertThat(asked.get(asked.size() - 1).body()).contains("refused");
        sandboxes.forget(key);
        sandboxes.delete(key);
    }
}
