package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.testing.PostgresPass;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL pass only (AP-10): an approval left pending survives the SIGKILL of the server that
 * drives the run. Server A (a runnable jar on the IT server's database, with the same pinned names
 * and upstream CA) starts a real Claude Code run whose {@code Bash} needs an approval; once the
 * interrupt is listed, A is killed. The IT server takes the run over: its tool bridge re-reads the
 * run's mailbox, finds the permission prompt unanswered and waits on the interrupt A opened (no
 * second one). The person answers through the IT server; the same CLI process gets the approval,
 * its command runs once, and the run completes once.
 */
@PostgresPass
class ApprovalTakeoverPostgresIT {

    private static final int PORT_A = 19481;
    private static final String KEY = "sk-approval-takeover-" + UUID.randomUUID();

    /**
     * The processes of the Claude Code CLI in the sandbox: the only ones given its permission
     * prompt tool on their command line (the CLI and the shell the launcher wraps it in). The
     * pattern is bracketed so that it does not match the shell running this very command.
     */
    private static final String CLI_PIDS =
            "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null"
                    + " | grep -q -- '--permission-prompt-too[l]' && echo ${p#/proc/}; done | sort -n";

    @TempDir Path work;

    private static Map<String, String> serverA() {
        return serverA("approvals-a");
    }

    /**
     * A runnable jar's environment on the IT server's database, with the IT server's tokens and
     * egress settings (pinned names, upstream CA, gateway image), as node {@code node}.
     */
    static Map<String, String> serverA(String node) {
        Map<String, String> env = new HashMap<>();
        env.put("AGENTBOX_DB_URL", ItDatabase.url());
        env.put("AGENTBOX_DB_USER", ItDatabase.user());
        env.put("AGENTBOX_DB_PASSWORD", ItDatabase.password());
        env.put("AGENTBOX_AUTH_TOKENS", "tenant-a=token-a,tenant-b=token-b,ops=token-ops");
        env.put("AGENTBOX_NODE_ID", node);
        env.put("AGENTBOX_EGRESS_RESOLVE", System.getProperty("agentbox.it.egress.resolve"));
        env.put(
                "AGENTBOX_EGRESS_UPSTREAM_CA",
                System.getProperty("agentbox.it.egress.upstream-ca"));
        env.put(
                "AGENTBOX_EGRESS_IMAGE",
                System.getProperty("agentbox.it.egress.image", "agentbox/egress:1"));
        return env;
    }

    @Test
    void aPendingApprovalOutlivesItsServerAndTheAnswerThroughAnotherServerRunsTheCommandOnce()
            throws Exception {
        Api b = Api.itServer();
        Runs onB = new Runs(b, Api.TENANT_A);
        Sandboxes sandboxes = new Sandboxes(b, Api.TENANT_A);
        String runId = "approval-takeover-" + UUID.randomUUID();
        String sandboxKey = null;
        // The tenant's gateway is shared with whatever else runs on this engine: it is removed at
        // the end only if this test made it.
        boolean gatewayBefore =
                DockerCli.run("inspect", EgressWorld.gateway(EgressWorld.TENANT_A)).exitCode() == 0;
        try (ModelHost host = ModelHost.start(KEY)) {
            ScriptedModelServer model = host.model();
            model.enqueue(
                    Turn.claudeBash("echo once >> /workspace/once.txt"),
                    Turn.text("appended after the takeover"));
            JarServer a = JarServer.start(work, PORT_A, serverA(), "/health/ready");
            JsonObject asked;
            String cliBefore;
            try {
                Runs onA = new Runs(a.api(), Api.TENANT_A);
                onA.start(
                        "{\"runId\":\""
                                + runId
                                + "\",\"threadId\":\"t-"
                                + runId
                                + "\",\"harness\":\"claude-code\",\"prompt\":\"append a line\","
                                + "\"sandbox\":"
                                + ModelHost.claudeSandbox("approval-takeover", KEY)
                                + ",\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]}");
                asked = pendingInterrupt(onA, runId);
                sandboxKey = onA.get(runId).getString("sandboxKey");
                assertThat(onA.get(runId).getInt("driverEpoch", 1)).isEqualTo(1);
                cliBefore = sandboxes.stdout(sandboxKey, CLI_PIDS).trim();
                assertThat(cliBefore).as("the CLI waits for its answer").isNotBlank();
            } finally {
                a.kill();
            }
            assertThat(asked.getString("tool")).isEqualTo("Bash");
            assertThat(asked.getJsonObject("arguments").getString("command")).contains("once.txt");

            // The IT server takes the run over (A's database session is gone) and its bridge
            // waits on the same interrupt: still the one listed, the CLI still the same process.
            String key = sandboxKey;
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> onB.get(runId).getInt("driverEpoch", 1) >= 2);
            JsonObject afterTakeover = onB.get(runId);
            assertThat(afterTakeover.getString("status")).isEqualTo("running");
            JsonArray stillPending = afterTakeover.getJsonArray("interrupts");
            assertThat(stillPending).hasSize(1);
            assertThat(stillPending.getJsonObject(0).getString("id"))
                    .isEqualTo(asked.getString("id"));
            assertThat(sandboxes.stdout(key, CLI_PIDS).trim())
                    .as("the same CLI process")
                    .isEqualTo(cliBefore);
            assertThat(sandboxes.stdout(key, "cat /workspace/once.txt 2>/dev/null | wc -l").trim())
                    .as("nothing ran before the answer")
                    .isEqualTo("0");
            // The CLI's own journal (read now: the reaper prunes journals of ended runs): one
            // start (one init line), one tool call, which has no result yet.
            String journal = sandboxes.stdout(key, "cat /tmp/agentbox-runs/*.ndjson");
            assertThat(count(journal, "\"subtype\":\"init\"")).as(journal).isEqualTo(1);
            assertThat(count(journal, "\"type\":\"tool_use\"")).as(journal).isEqualTo(1);
            assertThat(count(journal, "\"type\":\"tool_result\"")).as(journal).isZero();

            // The successor's bridge re-reads the mailbox as soon as it has the journal, and asks
            // its gate again for the unanswered permission prompt; nothing outside the server
            // shows that wait. Answering a moment later makes the case exercised the one the
            // contract is about (the answer wakes a wait on the other server); an answer that came
            // first would be found settled by that ask, and the assertions below hold either way.
            Thread.sleep(3000);
            answer(b, runId, asked.getString("id"));

            List<SseClient.Event> events = onB.transcript(runId, null);
            assertThat(events).isNotEmpty();
            assertThat(events.get(events.size() - 1).name())
                    .as(events.toString())
                    .isEqualTo("RUN_FINISHED");
            assertThat(events.stream().filter(e -> e.name().equals("RUN_FINISHED")).count())
                    .isEqualTo(1);
            List<String> fingerprints =
                    events.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList();
            assertThat(fingerprints).as("every chunk once").doesNotHaveDuplicates();
            List<Long> offsets = events.stream().map(e -> Long.parseLong(e.id())).toList();
            assertThat(offsets).isSorted().doesNotHaveDuplicates();
            assertThat(events.stream().filter(e -> custom(e, "interrupt.requested")).count())
                    .as("one interrupt, opened by A")
                    .isEqualTo(1);
            List<JsonObject> decided =
                    events.stream()
                            .filter(e -> custom(e, "approval.decided"))
                            .map(e -> Api.parse(e.data()).getJsonObject("value"))
                            .toList();
            assertThat(decided).hasSize(1);
            assertThat(decided.get(0).get("approved")).isEqualTo(JsonValue.TRUE);
            assertThat(decided.get(0).getString("interruptId")).isEqualTo(asked.getString("id"));
            assertThat(events.stream().filter(e -> e.name().equals("TOOL_CALL_START")).count())
                    .isEqualTo(1);
            assertThat(
                            events.stream()
                                    .filter(e -> e.name().equals("TEXT_MESSAGE_CONTENT"))
                                    .map(SseClient.Event::data))
                    .anyMatch(d -> d.contains("appended after the takeover"));

            // The stored log is what the stream gave, chunk for chunk.
            assertThat(storedLog(b, runId))
                    .as("the stored log against the stream")
                    .isEqualTo(
                            events.stream()
                                    .map(e -> Map.entry(e.id(), Api.parse(e.data())))
                                    .toList());

            JsonObject record = onB.get(runId);
            assertThat(record.getString("status")).isEqualTo("completed");
            assertThat(record).doesNotContainKey("interrupts");
            assertThat(record.getInt("driverEpoch")).isGreaterThanOrEqualTo(2);

            assertThat(sandboxes.stdout(key, "cat /workspace/once.txt"))
                    .as("the command ran exactly once")
                    .isEqualTo("once\n");
            assertThat(model.modelRequests()).as("the CLI was not started again").hasSize(2);
            assertThat(model.modelRequests().get(1).body()).contains("tool_result");
        } finally {
            if (sandboxKey != null) {
                HttpResponse<String> deleted = sandboxes.delete(sandboxKey);
                assertThat(deleted.statusCode()).as(deleted.body()).isBetween(200, 204);
                String key = sandboxKey;
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(
                                () ->
                                        assertThat(
                                                        DockerCli.containersWithLabels(
                                                                "dev.agentbox.key=" + key))
                                                .as("the sandbox is destroyed")
                                                .isEmpty());
            }
            if (!gatewayBefore) {
                EgressWorld.removeGateways(EgressWorld.TENANT_A);
            }
        }
    }

    /** The run's one pending interrupt, once Claude Code has asked. */
    private static JsonObject pendingInterrupt(Runs runs, String runId)
            throws InterruptedException {
        long deadline = System.nanoTime() + 180_000_000_000L;
        while (System.nanoTime() < deadline) {
            JsonObject run = runs.get(runId);
            if (!List.of("running", "interrupted").contains(run.getString("status"))) {
                throw new AssertionError("the run ended without asking: " + run);
            }
            if (run.get("interrupts") instanceof JsonArray a && !a.isEmpty()) {
                assertThat(a).hasSize(1);
                return a.getJsonObject(0);
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no interrupt listed on " + runId + ": " + runs.get(runId));
    }

    private static void answer(Api api, String runId, String id) {
        HttpResponse<String> r =
                api.send(
                        api.request(Runs.path(runId) + "/interrupts/" + id, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"status\":\"resolved\","
                                                        + "\"payload\":{\"approved\":true}}")));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
    }

    /** The whole stored log, page by page: (offset, chunk) in order. */
    private static List<Map.Entry<String, JsonObject>> storedLog(Api api, String runId) {
        List<Map.Entry<String, JsonObject>> all = new ArrayList<>();
        String after = null;
        while (true) {
            JsonArray page =
                    Api.json(
                                    api.get(
                                            Runs.path(runId)
                                                    + "/log?limit=200"
                                                    + (after == null ? "" : "&after=" + after),
                                            Api.TENANT_A))
                            .asJsonArray();
            if (page.isEmpty()) {
                return all;
            }
            for (JsonValue v : page) {
                JsonObject entry = v.asJsonObject();
                after = entry.getString("offset");
                all.add(Map.entry(after, entry.getJsonObject("chunk")));
            }
        }
    }

    private static boolean custom(SseClient.Event e, String name) {
        return e.name().equals("CUSTOM") && Api.parse(e.data()).getString("name", "").equals(name);
    }

    private static long count(String text, String needle) {
        long n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
