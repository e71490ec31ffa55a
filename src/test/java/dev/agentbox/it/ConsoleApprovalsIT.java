package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Approvals answered from the operator console in Chromium (docs/console.md, docs/behavior.md CO-10
 * and CO-11). Two real Claude Code runs with an {@code ask} rule for {@code Bash} each wait on a
 * pending approval of a command that overwrites {@code notes.txt} (made {@code before} by the
 * sandbox's setup) with text holding {@code <b>}; {@code src/test/node/console-approvals-e2e.mjs}
 * then approves the first from {@code #/approvals}, sees a second window's late Deny of it refused
 * with the API's {@code 409}, and denies the second from its run's page. The model is the scripted
 * one behind a {@link ModelHost}: nothing leaves this machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleApprovalsIT {

    private static final String KEY = "sk-console-" + UUID.randomUUID();
    private static final String ASK_BASH =
            ",\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]";
    private static final String SETUP = "\"echo before > /workspace/notes.txt\"";

    /** What the script must have checked; a step it stopped doing fails here. */
    static final List<String> STEPS =
            List.of(
                    "CO-10 the approvals view lists both runs' approvals, arguments as text",
                    "CO-10 Approve answers the approval and the run completes",
                    "CO-10 a second window's late Deny is the API's 409, shown as answered elsewhere",
                    "CO-11 Deny on the run's page refuses the call and the run records it",
                    "CO-08 no script error and no CSP violation on any page");

    private ModelHost host;
    private ScriptedModelServer model;
    private final Api api = Api.itServer();
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final NodeScripts node = new NodeScripts();
    private final List<String> started = new ArrayList<>();
    private final Path screenshots = Path.of("target", "console-screenshots").toAbsolutePath();

    @BeforeAll
    void browserAndModel() throws Exception {
        node.requireInstalled(List.of("playwright-core"));
        assertThat(Files.isExecutable(ConsoleIT.CHROMIUM))
                .as(
                        "%s is missing: run scripts/browser (installs Debian's chromium)",
                        ConsoleIT.CHROMIUM)
                .isTrue();
        host = ModelHost.start(KEY);
        model = host.model();
    }

    @AfterAll
    void stop() {
        if (host != null) {
            host.close();
        }
        EgressWorld.removeGateways(EgressWorld.TENANT_A);
    }

    /**
     * Whatever the script did (a failed one may leave a run waiting on its approval): the runs are
     * cancelled and their sandboxes destroyed.
     */
    @AfterEach
    void cleanUp() {
        for (String runId : started) {
            HttpResponse<String> r = api.get(Runs.path(runId), Api.TENANT_A);
            if (r.statusCode() != 200) {
                continue;
            }
            JsonObject run = Api.object(r);
            if (!List.of("completed", "failed", "aborted").contains(run.getString("status"))) {
                runs.cancel(runId);
            }
            if (run.containsKey("sandboxKey")) {
                sandboxes.delete(run.getString("sandboxKey"));
            }
        }
        started.clear();
        model.clearRequests();
        model.clearScript();
    }

    private String start(String prefix) {
        String runId = prefix + UUID.randomUUID();
        started.add(runId);
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\",\"harness\":\"claude-code\",\"prompt\":\"rewrite the notes\","
                        + "\"sandbox\":"
                        + ModelHost.claudeSandbox("console-approvals", KEY, SETUP)
                        + ASK_BASH
                        + "}");
        return runId;
    }

    /**
     * Waits until the run lists its one pending approval. The runs are started one after the other,
     * each once the previous one waits: the scripted model answers requests in order, so the first
     * run's first request takes the first command and the second run's the second.
     */
    private JsonObject pendingInterrupt(String runId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
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

    private static JsonObject decided(List<SseClient.Event> events) {
        return events.stream()
                .filter(e -> e.name().equals("CUSTOM"))
                .map(e -> Api.parse(e.data()))
                .filter(c -> c.getString("name", "").equals("approval.decided"))
                .map(c -> c.getJsonObject("value"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no approval.decided in " + events));
    }

    @Test
    void approvalsAreAnsweredFromTheConsoleInChromium() throws Exception {
        model.enqueue(
                Turn.claudeBash("echo '<b>approved</b>' > /workspace/notes.txt"),
                Turn.claudeBash("echo '<b>denied</b>' > /workspace/notes.txt"),
                Turn.text("done"),
                Turn.text("done"));
        String approveRun = start("console-approve-");
        JsonObject approveAsk = pendingInterrupt(approveRun);
        String denyRun = start("console-deny-");
        JsonObject denyAsk = pendingInterrupt(denyRun);
        assertThat(approveAsk.getJsonObject("arguments").getString("command"))
                .contains("<b>approved</b>");
        assertThat(denyAsk.getJsonObject("arguments").getString("command"))
                .contains("<b>denied</b>");

        NodeScripts.Result r =
                node.run(
                        "console-approvals-e2e.mjs",
                        Json.createObjectBuilder()
                                .add("baseUrl", api.baseUrl())
                                .add("token", Api.TENANT_A)
                                .add("screenshots", screenshots.toString())
                                .add("chromium", ConsoleIT.CHROMIUM.toString())
                                .add("approveRun", approveRun)
                                .add("denyRun", denyRun)
                                .build(),
                        Duration.ofMinutes(5));

        assertThat(r.exitCode())
                .as("console-approvals-e2e.mjs exit code; it printed %s", r.json())
                .isZero();
        assertThat(
                        r.json().getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                                .map(c -> c.getString("name"))
                                .toList())
                .as("the steps console-approvals-e2e.mjs passed")
                .containsExactlyElementsOf(STEPS);
        assertThat(screenshots.resolve("approvals.png")).isNotEmptyFile();

        // Approved: the command ran, and the run says who decided.
        JsonObject approved = decided(runs.transcript(approveRun, null));
        assertThat(approved.getBoolean("approved")).isTrue();
        assertThat(approved.getString("by")).isEqualTo("answer");
        assertThat(approved.getString("interruptId")).isEqualTo(approveAsk.getString("id"));
        JsonObject approvedRecord = runs.get(approveRun);
        assertThat(approvedRecord.getString("status")).isEqualTo("completed");
        assertThat(approvedRecord).doesNotContainKey("interrupts");
        String approvedKey = approvedRecord.getString("sandboxKey");
        assertThat(sandboxes.stdout(approvedKey, "cat /workspace/notes.txt"))
                .isEqualTo("<b>approved</b>\n");

        // Denied: the file is as the setup left it, and the model was told of the refusal.
        JsonObject denied = decided(runs.transcript(denyRun, null));
        assertThat(denied.getBoolean("approved")).isFalse();
        assertThat(denied.getString("by")).isEqualTo("answer");
        assertThat(denied.getString("reason")).isEqualTo("denied by a person");
        JsonObject deniedRecord = runs.get(denyRun);
        assertThat(deniedRecord.getString("status")).isEqualTo("completed");
        String deniedKey = deniedRecord.getString("sandboxKey");
        assertThat(sandboxes.stdout(deniedKey, "cat /workspace/notes.txt")).isEqualTo("before\n");
        assertThat(model.modelRequests())
                .anySatisfy(req -> assertThat(req.body()).contains("denied by a person"));

        for (String key : List.of(approvedKey, deniedKey)) {
            assertThat(sandboxes.delete(key).statusCode()).isEqualTo(204);
            assertThat(api.get("/api/v1/sandboxes/" + key, Api.TENANT_A).statusCode())
                    .as("sandbox %s destroyed", key)
                    .isEqualTo(404);
        }
    }
}
