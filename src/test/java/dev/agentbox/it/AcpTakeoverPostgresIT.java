package dev.agentbox.it;

import static dev.agentbox.testing.AgUiAssert.assertValidAgUiLog;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL pass only: an {@code acp} run outlives the SIGKILL of the server that drives it
 * (docs/acp.md, "Durability"). Server A (a runnable jar on the IT server's database) starts the
 * scripted ACP agent (src/test/node/acp-test-agent.mjs) in a sandbox of the agents image and is
 * killed mid-turn; the IT server takes the run over, replays the journal through a fresh ACP
 * client, and re-attaches to the same agent process: it writes only what the inbox lacks, so the
 * agent is neither started again nor told anything twice.
 */
@PostgresPass
class AcpTakeoverPostgresIT {

    private static final int PORT_A = 19491;
    private static final String AGENT_PATH = AcpRunsIT.AGENT_PATH;
    private static final String JOURNALS = "/tmp/agentbox-runs/";
    private static final String JOURNAL_KEPT = "/tmp/acp-journal.kept";
    private static final String INBOX_KEPT = "/tmp/acp-inbox.kept";

    /**
     * The test agent's Node processes in the sandbox: those whose command line begins with {@code
     * node} and the agent's path (the launcher's shell names the path too, but not first; nor does
     * the shell running this very command).
     */
    private static final String AGENT_PIDS =
            "for p in /proc/[0-9]*; do c=$(tr '\\0' ' ' < $p/cmdline 2>/dev/null); case \"$c\" in"
                    + " 'node "
                    + AGENT_PATH
                    + "'*) echo ${p#/proc/};; esac; done | sort -n";

    private static byte[] bundle;

    @TempDir Path work;

    private final Api b = Api.itServer();
    private final Runs onB = new Runs(b, Api.TENANT_A);
    private final Sandboxes sandboxes = new Sandboxes(b, Api.TENANT_A);
    private JarServer a;

    @BeforeAll
    static void bundle() throws Exception {
        Path p =
                Path.of(System.getProperty("agentbox.it.node-dir", "src/test/node"))
                        .resolve("dist/acp-test-agent.bundle.mjs");
        assertThat(p).as("scripts/node-clients builds the ACP test agent").exists();
        bundle = Files.readAllBytes(p);
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (a != null) {
            a.kill();
            a = null;
        }
        sandboxes.close();
    }

    /**
     * AC-11: SIGKILL of the server driving an {@code acp} run mid-turn — the agent has said its pid
     * and "started" and waits — and the IT server re-attaches to the same agent process: one agent
     * was ever started, every text delta reaches the stream once and in order, the stored log's
     * offsets are contiguous, the stream is valid AG-UI, and the run completes once.
     */
    @Test
    void aKilledDriversAcpTurnIsFinishedByAnotherServerOnTheSameAgentWithEveryChunkOnce()
            throws Exception {
        String key = sandbox();
        a =
                JarServer.start(
                        work, PORT_A, ApprovalTakeoverPostgresIT.serverA("acp-a"), "/health/ready");
        String runId = startOnA(key, "pid-slow 20000", "");

        List<SseClient.Event> events = new ArrayList<>();
        String pid;
        try (SseClient sse = onB.events(runId, null)) {
            // Through the IT server while A drives: until the agent waits in its turn.
            while (events.stream().noneMatch(e -> "started".equals(delta(e)))) {
                SseClient.Event e = sse.next(Duration.ofSeconds(60));
                assertThat(e)
                        .as("the stream ended before the agent started: %s", events)
                        .isNotNull();
                events.add(e);
            }
            Matcher said = Pattern.compile("^pid (\\d+) $").matcher(deltas(events).get(0));
            assertThat(said.matches()).as(deltas(events).toString()).isTrue();
            pid = said.group(1);
            assertThat(sandboxes.stdout(key, AGENT_PIDS).trim())
                    .as("the agent that said its pid is the one agent process")
                    .isEqualTo(pid);
            assertThat(onB.get(runId).getInt("driverEpoch", 1)).isEqualTo(1);
            long killed = System.nanoTime();
            a.kill();
            a = null;

            awaitTakenOver(runId);
            long takenOverMs = (System.nanoTime() - killed) / 1_000_000;
            // Still mid-turn: the same process waits, and the journal holds one start of it.
            assertThat(onB.get(runId).getString("status")).isEqualTo("running");
            assertThat(sandboxes.stdout(key, AGENT_PIDS).trim())
                    .as("the agent was not started again (%d ms after the kill)", takenOverMs)
                    .isEqualTo(pid);
            keepJournal(key, runId);
            String journal = kept(key);
            assertThat(count(journal, "\"protocolVersion\""))
                    .as("one initialize answered: %s", journal)
                    .isEqualTo(1);
            assertThat(count(journal, "\"finished\"")).as("still mid-turn").isZero();

            events.addAll(Runs.drain(sse, Duration.ofSeconds(90)));
        }

        List<JsonObject> chunks = events.stream().map(e -> Api.parse(e.data())).toList();
        assertValidAgUiLog(chunks);
        assertThat(deltas(events))
                .as("each text delta once, in order")
                .containsExactly("pid " + pid + " ", "started", "finished");
        assertEndedOnce(runId, events);
        assertThat(custom(events, "acp.session")).hasSize(1);
        String journal = kept(key);
        assertThat(count(journal, "\"stopReason\"")).as(journal).isEqualTo(1);
        assertThat(count(journal, "\"protocolVersion\"")).as(journal).isEqualTo(1);
    }

    /**
     * AC-12: SIGKILL of the server driving an {@code acp} run while the agent's permission request
     * waits on an {@code ask} interrupt. The IT server takes over and finds the same interrupt (the
     * run lists exactly one); the answer posted through it reaches the same agent process exactly
     * once (one answer in the inbox, one completed tool call, the file written as asked), and the
     * run completes once.
     */
    @Test
    void aPermissionRequestPendingWhenItsServerIsKilledIsAnsweredOnceThroughAnotherServer()
            throws Exception {
        String key = sandbox();
        a =
                JarServer.start(
                        work, PORT_A, ApprovalTakeoverPostgresIT.serverA("acp-a"), "/health/ready");
        String runId =
                startOnA(
                        key,
                        "write f.txt yes",
                        ",\"approvals\":[{\"tool\":\"Write *\",\"decision\":\"ask\"}]");
        JsonObject asked = pendingInterrupt(new Runs(a.api(), Api.TENANT_A), runId);
        assertThat(asked.getString("tool")).isEqualTo("Write f.txt");
        assertThat(asked.getJsonObject("arguments").getString("content")).isEqualTo("yes");
        String agent = sandboxes.stdout(key, AGENT_PIDS).trim();
        assertThat(agent).as("the agent waits for its answer").isNotBlank();
        assertThat(onB.get(runId).getInt("driverEpoch", 1)).isEqualTo(1);
        a.kill();
        a = null;

        awaitTakenOver(runId);
        keepJournal(key, runId);
        keepInbox(key, runId);
        // The successor replays the journal and asks its gate again for the unanswered request; a
        // moment later, a gate that opened a second interrupt would list it. Answering after that
        // makes the answer wake the successor's wait (an answer that came first would be found
        // settled; the assertions hold either way).
        Thread.sleep(3000);
        JsonObject afterTakeover = onB.get(runId);
        assertThat(afterTakeover.getString("status")).isIn("running", "interrupted");
        JsonArray stillPending = afterTakeover.getJsonArray("interrupts");
        assertThat(stillPending).as("the same interrupt, no second one").hasSize(1);
        assertThat(stillPending.getJsonObject(0).getString("id")).isEqualTo(asked.getString("id"));
        assertThat(sandboxes.stdout(key, AGENT_PIDS).trim())
                .as("the same agent process")
                .isEqualTo(agent);
        assertThat(sandboxes.stdout(key, "ls " + inbox(runId) + " | grep -c '^a-' || true").trim())
                .as("no answer before the person's")
                .isEqualTo("0");
        assertThat(sandboxes.execRaw(key, "test -e /workspace/f.txt").body())
                .as("nothing written before the answer")
                .contains("\"exitCode\":1");
        answer(runId, asked.getString("id"));

        List<SseClient.Event> events = onB.transcript(runId, null);
        List<JsonObject> chunks = events.stream().map(e -> Api.parse(e.data())).toList();
        assertValidAgUiLog(chunks);
        assertEndedOnce(runId, events);
        assertThat(custom(events, "interrupt.requested")).as("one interrupt, A's").hasSize(1);
        List<JsonObject> decided =
                custom(events, "approval.decided").stream()
                        .map(c -> c.getJsonObject("value"))
                        .toList();
        assertThat(decided).hasSize(1);
        assertThat(decided.get(0).get("approved")).isEqualTo(JsonValue.TRUE);
        assertThat(decided.get(0).getString("interruptId")).isEqualTo(asked.getString("id"));
        assertThat(names(events, "TOOL_CALL_START")).isEqualTo(1);
        assertThat(names(events, "TOOL_CALL_RESULT")).as("one completed tool call").isEqualTo(1);
        assertThat(deltas(events)).containsExactly("wrote");

        assertThat(sandboxes.stdout(key, "sort -u " + INBOX_KEPT + " | grep -c '^a-'").trim())
                .as("one answer was ever written for the agent")
                .isEqualTo("1");
        String journal = kept(key);
        assertThat(count(journal, "\"session/request_permission\"")).as(journal).isEqualTo(1);
        assertThat(count(journal, "\"status\":\"completed\"")).as(journal).isEqualTo(1);
        assertThat(count(journal, "\"protocolVersion\"")).as("one agent start").isEqualTo(1);
        assertThat(sandboxes.stdout(key, "cat /workspace/f.txt")).isEqualTo("yes");
    }

    /** A sandbox of the agents image without network, holding the test agent. */
    private String sandbox() {
        String key =
                sandboxes
                        .ensure(
                                "{\"definitionId\":\"acp-takeover\",\"image\":\"agentbox/sandbox:agents\","
                                        + "\"lifecycle\":{\"reuse\":\"none\"},\"policy\":{\"network\":\"none\"}}")
                        .getString("key");
        HttpResponse<String> put =
                b.send(
                        b.request(
                                        "/api/v1/sandboxes/" + key + "/files?path=" + AGENT_PATH,
                                        Api.TENANT_A)
                                .PUT(HttpRequest.BodyPublishers.ofByteArray(bundle)));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(204);
        return key;
    }

    private String startOnA(String key, String prompt, String extra) {
        String runId = "acp-takeover-" + UUID.randomUUID();
        new Runs(a.api(), Api.TENANT_A)
                .start(
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

    /** Waits until the IT server has claimed the run (A's database session is gone). */
    private void awaitTakenOver(String runId) {
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> onB.get(runId).getInt("driverEpoch", 1) >= 2);
    }

    /**
     * The run ended completed, once: one terminal chunk, the last; the stream's offsets contiguous
     * and each chunk once; the stored log what the stream gave.
     */
    private void assertEndedOnce(String runId, List<SseClient.Event> events) {
        assertThat(events.get(events.size() - 1).name())
                .as(events.toString())
                .isEqualTo("RUN_FINISHED");
        assertThat(events.stream().filter(e -> e.name().equals("RUN_FINISHED"))).hasSize(1);
        assertThat(events.stream().filter(e -> e.name().equals("RUN_ERROR"))).isEmpty();
        List<Long> offsets = events.stream().map(e -> Long.parseLong(e.id())).toList();
        for (int i = 1; i < offsets.size(); i++) {
            assertThat(offsets.get(i)).as("offsets %s", offsets).isEqualTo(offsets.get(i - 1) + 1);
        }
        assertThat(events.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList())
                .as("every chunk once")
                .doesNotHaveDuplicates();
        assertThat(storedLog(runId))
                .as("the stored log against the stream")
                .isEqualTo(
                        events.stream().map(e -> Map.entry(e.id(), Api.parse(e.data()))).toList());
        JsonObject record = onB.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record).doesNotContainKey("interrupts");
        assertThat(record.getInt("driverEpoch")).isGreaterThanOrEqualTo(2);
    }

    /** The run's one pending interrupt, once the agent has asked. */
    private static JsonObject pendingInterrupt(Runs runs, String runId)
            throws InterruptedException {
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (System.nanoTime() < deadline) {
            JsonObject run = runs.get(runId);
            if (!List.of("running", "interrupted").contains(run.getString("status"))) {
                throw new AssertionError("the run ended without asking: " + run);
            }
            if (run.get("interrupts") instanceof JsonArray i && !i.isEmpty()) {
                assertThat(i).hasSize(1);
                return i.getJsonObject(0);
            }
            Thread.sleep(250);
        }
        throw new AssertionError("no interrupt listed on " + runId + ": " + runs.get(runId));
    }

    private void answer(String runId, String id) {
        HttpResponse<String> r =
                b.send(
                        b.request(Runs.path(runId) + "/interrupts/" + id, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"status\":\"resolved\","
                                                        + "\"payload\":{\"approved\":true}}")));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
    }

    /** The whole stored log, page by page: (offset, chunk) in order. */
    private List<Map.Entry<String, JsonObject>> storedLog(String runId) {
        List<Map.Entry<String, JsonObject>> all = new ArrayList<>();
        String after = null;
        while (true) {
            JsonArray page =
                    Api.json(
                                    b.get(
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

    /**
     * Keeps the run's journal (the agent's stdout) past the run's end, when the reaper deletes its
     * name: a hard link to the same file, which the agent goes on writing.
     */
    private void keepJournal(String key, String runId) {
        sandboxes.exec(
                key, "ln -f " + JOURNALS + JournalNames.encode(runId) + ".ndjson " + JOURNAL_KEPT);
    }

    /** The run's journal as far as the agent wrote it ({@link #keepJournal}). */
    private String kept(String key) {
        return sandboxes.stdout(key, "cat " + JOURNAL_KEPT);
    }

    /**
     * Keeps the names in the run's inbox past the run's end: a background listing, every 50 ms
     * while the inbox is there, appended to {@link #INBOX_KEPT}.
     */
    private void keepInbox(String key, String runId) {
        String dir = inbox(runId);
        sandboxes.start(
                key,
                "i=0; while [ -d "
                        + dir
                        + " ] && [ $i -lt 2400 ]; do ls "
                        + dir
                        + " >> "
                        + INBOX_KEPT
                        + "; i=$((i+1)); sleep 0.05; done");
    }

    /** The run's ACP inbox: what the servers wrote for the agent's stdin. */
    private static String inbox(String runId) {
        return JOURNALS + JournalNames.encode(runId) + ".mcp/acp";
    }

    private static String delta(SseClient.Event e) {
        return e.name().equals("TEXT_MESSAGE_CONTENT")
                ? Api.parse(e.data()).getString("delta")
                : null;
    }

    private static List<String> deltas(List<SseClient.Event> events) {
        return events.stream().map(AcpTakeoverPostgresIT::delta).filter(d -> d != null).toList();
    }

    private static List<JsonObject> custom(List<SseClient.Event> events, String name) {
        return events.stream()
                .filter(e -> e.name().equals("CUSTOM"))
                .map(e -> Api.parse(e.data()))
                .filter(c -> c.getString("name", "").equals(name))
                .toList();
    }

    private static long names(List<SseClient.Event> events, String type) {
        return events.stream().filter(e -> e.name().equals(type)).count();
    }

    private static long count(String text, String needle) {
        long n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
