package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.testing.AgUiAssert;
import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Durable runs end to end: a scripted agent in a real container, transcripts compared chunk by
 * chunk.
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunsIT {

    /**
     * A scripted agent: deltas, a non-JSON line, a tool call, another JSON object, a pause, a
     * closing delta.
     */
    static final List<String> AGENT_LINES =
            List.of(
                    "{\"delta\":\"Hel\"}",
                    "{\"delta\":\"lo\"}",
                    "plain text",
                    "{\"type\":\"TOOL_CALL_START\",\"toolCallName\":\"ls\"}",
                    "{\"type\":\"TOOL_CALL_ARGS\",\"delta\":\"{}\"}",
                    "{\"type\":\"TOOL_CALL_END\"}",
                    "{\"foo\":1}",
                    "{\"delta\":\"bye\"}");

    static final String AGENT;

    static {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < AGENT_LINES.size(); i++) {
            if (i == 6) {
                sb.append("sleep 1; ");
            }
            sb.append("printf '%s\\n' '").append(AGENT_LINES.get(i)).append("'; ");
        }
        AGENT = sb.append("true").toString();
    }

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private String key;

    @BeforeAll
    void sandbox() {
        key =
                sandboxes
                        .ensure("{\"definitionId\":\"runs-" + UUID.randomUUID() + "\"}")
                        .getString("key");
    }

    @AfterAll
    void cleanUp() {
        sandboxes.close();
    }

    private String keyRef() {
        return "{\"key\":\"" + key + "\"}";
    }

    private static String newRunId() {
        return "r-" + UUID.randomUUID();
    }

    /**
     * The chunks the command harness must produce for AGENT_LINES, by fingerprint (no timestamps).
     */
    private static List<String> expectedFingerprints(String runId) {
        HarnessTranslator t = Harness.COMMAND.translator(runId, "t-runs", () -> 0L);
        List<JsonObject> chunks = new ArrayList<>();
        chunks.addAll(t.onStart());
        chunks.add(
                new dev.agentbox.run.harness.ChunkFactory(runId, "t-runs", () -> 0L)
                        .custom("run.accepted", JsonValue.EMPTY_JSON_OBJECT));
        AGENT_LINES.forEach(l -> chunks.addAll(t.onLine(l)));
        chunks.addAll(t.onExit(0, ""));
        return chunks.stream().map(Chunks::fingerprint).toList();
    }

    private static List<String> fingerprints(List<SseClient.Event> events) {
        return events.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList();
    }

    /** RD-01: a healthy agent: every chunk in order, completed with finishedAt, the stream ends. */
    @Test
    void aHealthyRunStreamsTheExactTranscriptAndCompletes() {
        String runId = newRunId();
        JsonObject accepted = runs.start(Runs.runBody(runId, keyRef(), AGENT, ""));
        assertThat(accepted.getString("status")).isEqualTo("running");
        assertThat(accepted.getString("events")).isEqualTo("/api/v1/runs/" + runId + "/events");

        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events)
                .extracting(SseClient.Event::name)
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM",
                        "TEXT_MESSAGE_START",
                        "TEXT_MESSAGE_CONTENT",
                        "TEXT_MESSAGE_CONTENT",
                        "TEXT_MESSAGE_END",
                        "CUSTOM",
                        "TOOL_CALL_START",
                        "TOOL_CALL_ARGS",
                        "TOOL_CALL_END",
                        "CUSTOM",
                        "TEXT_MESSAGE_START",
                        "TEXT_MESSAGE_CONTENT",
                        "TEXT_MESSAGE_END",
                        "RUN_FINISHED");
        assertThat(fingerprints(events)).containsExactlyElementsOf(expectedFingerprints(runId));
        assertThat(Api.parse(events.get(1).data()).getString("name")).isEqualTo("run.accepted");
        // CH-01, CH-02: what a client receives is a valid AG-UI sequence.
        AgUiAssert.assertValidAgUiLog(events.stream().map(e -> Api.parse(e.data())).toList());
        List<Long> ids = events.stream().map(e -> Long.parseLong(e.id())).toList();
        assertThat(ids).isSorted().doesNotHaveDuplicates();
        events.forEach(
                e -> {
                    JsonObject c = Api.parse(e.data());
                    assertThat(c.getString("runId")).isEqualTo(runId);
                    assertThat(c.getString("threadId")).isEqualTo("t-runs");
                    assertThat(c.getJsonNumber("timestamp").longValue()).isPositive();
                });

        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record.containsKey("finishedAt")).isTrue();
        assertThat(record.getInt("driverEpoch")).isEqualTo(1);
        assertThat(record.getString("harness")).isEqualTo("command");
        assertThat(record.containsKey("error")).isFalse();
        assertThat(record.containsKey("detachedSince")).isFalse();
        assertThat(record.containsKey("cancelRequested")).isFalse();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(
                                                sandboxes
                                                        .stdout(
                                                                key,
                                                                "ls -A /tmp/agentbox-runs 2>/dev/null | grep -c . || true")
                                                        .trim())
                                        .as("journal files deleted after completion")
                                        .isEqualTo("0"));

        List<SseClient.Event> tail = runs.transcript(runId, events.get(4).id());
        assertThat(tail)
                .extracting(SseClient.Event::id)
                .containsExactlyElementsOf(
                        events.subList(5, events.size()).stream()
                                .map(SseClient.Event::id)
                                .toList());
        assertThat(Api.json(api.get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray())
                .hasSize(events.size());
    }

    /**
     * TK-02: attaching to a completed run serves its transcript again and drives nothing: no new
     * claim, the record as it ended.
     */
    @Test
    void attachingToACompletedRunServesItsTranscriptAndDrivesNothing() {
        String runId = newRunId();
        runs.start(Runs.runBody(runId, keyRef(), "echo one; echo two", ""));
        List<SseClient.Event> first = runs.transcript(runId, null);
        JsonObject ended = runs.get(runId);
        assertThat(ended.getString("status")).isEqualTo("completed");

        List<SseClient.Event> again = runs.transcript(runId, null);

        assertThat(again).isEqualTo(first);
        assertThat(again.get(again.size() - 1).name()).isEqualTo("RUN_FINISHED");
        JsonObject after = runs.get(runId);
        assertThat(after.getInt("driverEpoch")).isEqualTo(ended.getInt("driverEpoch")).isEqualTo(1);
        assertThat(after.getString("finishedAt")).isEqualTo(ended.getString("finishedAt"));
        assertThat(Api.json(api.get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray())
                .hasSize(first.size());
    }

    @Test
    void twentyConcurrentReadersSeeIdenticalTranscripts() {
        String runId = newRunId();
        runs.start(Runs.runBody(runId, keyRef(), "sleep 2; " + AGENT, ""));
        List<CompletableFuture<List<String>>> readers = new ArrayList<>();
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(20);
        for (int i = 0; i < 20; i++) {
            readers.add(
                    CompletableFuture.supplyAsync(
                            () -> fingerprints(runs.transcript(runId, null)), pool));
        }
        pool.shutdown();
        List<List<String>> transcripts = readers.stream().map(CompletableFuture::join).toList();
        transcripts.forEach(
                t -> assertThat(t).containsExactlyElementsOf(expectedFingerprints(runId)));
    }

    /** RD-02: exit 7 is a terminal RUN_ERROR and a failed run, message and code kept. */
    @Test
    void aNonZeroExitFailsTheRunWithTheStderrTail() {
        String runId = newRunId();
        runs.start(Runs.runBody(runId, keyRef(), "echo working; echo boom >&2; exit 7", ""));
        List<SseClient.Event> events = runs.transcript(runId, null);
        SseClient.Event last = events.get(events.size() - 1);
        assertThat(last.name()).isEqualTo("RUN_ERROR");
        assertThat(Api.parse(last.data()).getString("message"))
                .isEqualTo("Agent process exited with code 7: boom");
        assertThat(Api.parse(last.data()).getString("code")).isEqualTo("agent-exit");
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("failed");
        assertThat(record.getJsonObject("error").getString("message"))
                .isEqualTo("Agent process exited with code 7: boom");
        assertThat(record.getJsonObject("error").getString("code")).isEqualTo("agent-exit");
    }

    @Test
    void aShellMetacharacterRunIdIsHarmless() {
        String runId = "a;touch /tmp/x$(id) b/c-" + UUID.randomUUID();
        runs.start(Runs.runBody(runId, keyRef(), "ls /tmp/agentbox-runs; sleep 1", ""));
        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events.get(events.size() - 1).name()).isEqualTo("RUN_FINISHED");
        List<String> listed =
                events.stream()
                        .filter(e -> e.name().equals("CUSTOM"))
                        .map(e -> Api.parse(e.data()))
                        .filter(c -> c.getString("name").equals("agent.text"))
                        .map(c -> c.getString("value"))
                        .toList();
        assertThat(listed)
                .anySatisfy(name -> assertThat(name).matches("^[A-Za-z0-9._-]+\\.ndjson$"));
        assertThat(sandboxes.stdout(key, "ls /tmp | grep '^x' || true"))
                .as("no canary file")
                .isEmpty();
        assertThat(runs.get(runId).getString("runId")).isEqualTo(runId);
    }

    @Test
    void invalidRunsAreRefusedWithTheFieldNamed() {
        assertProblem(
                runs.startRaw(
                        "{\"threadId\":\"t\",\"sandbox\":" + keyRef() + ",\"command\":\"true\"}"),
                400,
                "run-id-required");
        assertThat(
                        assertProblem(
                                        runs.startRaw(
                                                "{\"runId\":\"x\",\"sandbox\":"
                                                        + keyRef()
                                                        + ",\"command\":\"true\"}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("threadId");
        assertThat(
                        assertProblem(
                                        runs.startRaw(
                                                "{\"runId\":\"x\",\"threadId\":\"t\",\"harness\":\"gpt\",\"sandbox\":"
                                                        + keyRef()
                                                        + "}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("harness");
        assertThat(
                        assertProblem(
                                        runs.startRaw(
                                                Runs.runBody(
                                                        newRunId(),
                                                        "{\"key\":\"nope\"}",
                                                        "true",
                                                        "")),
                                        404,
                                        "not-found")
                                .getString("detail"))
                .contains("sandbox.key");
        String runId = newRunId();
        runs.start(Runs.runBody(runId, keyRef(), "true", ""));
        assertProblem(runs.startRaw(Runs.runBody(runId, keyRef(), "true", "")), 409, "run-exists");
        assertProblem(api.get(Runs.path("no-such-run"), Api.TENANT_A), 404, "not-found");
        assertProblem(api.get(Runs.path(runId), Api.TENANT_B), 404, "not-found");
        runs.transcript(runId, null);
    }

    @Test
    void threadsShowTheirActiveRunAndRunsListNewestFirst() {
        String runId = newRunId();
        String body =
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-active-"
                        + runId
                        + "\",\"sandbox\":"
                        + keyRef()
                        + ",\"command\":\"sleep 3\"}";
        runs.start(body);
        JsonObject active =
                Api.object(
                        api.get("/api/v1/threads/t-active-" + runId + "/active-run", Api.TENANT_A));
        assertThat(active.getString("runId")).isEqualTo(runId);
        // The server counts the run it drives while it drives it.
        assertThat(driving()).isGreaterThanOrEqualTo(1);
        runs.transcript(runId, null);
        assertProblem(
                api.get("/api/v1/threads/t-active-" + runId + "/active-run", Api.TENANT_A),
                404,
                "not-found");
        assertThat(
                        api.get(
                                        "/api/v1/runs?threadId=t-active-"
                                                + runId
                                                + "&status=completed",
                                        Api.TENANT_A)
                                .body())
                .contains(runId);
    }

    /** RN-05: the runs list walked by its links, filters kept, bad limits and cursors refused. */
    @Test
    void theRunsListPagesByLinkWithItsFiltersAndRefusesABadCursor() {
        String thread = "t-pages-" + UUID.randomUUID();
        List<String> started = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String runId = newRunId();
            runs.start(
                    "{\"runId\":\""
                            + runId
                            + "\",\"threadId\":\""
                            + thread
                            + "\",\"sandbox\":"
                            + keyRef()
                            + ",\"command\":\"true\"}");
            runs.transcript(runId, null);
            started.add(0, runId);
        }
        List<String> seen = new ArrayList<>();
        String next = "/api/v1/runs?threadId=" + thread + "&limit=1";
        int pages = 0;
        while (next != null) {
            HttpResponse<String> page = api.get(next, Api.TENANT_A);
            assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
            List<JsonObject> items = Api.json(page).asJsonArray().getValuesAs(JsonObject.class);
            assertThat(items).hasSizeLessThanOrEqualTo(1);
            items.forEach(r -> seen.add(r.getString("runId")));
            next =
                    page.headers()
                            .firstValue("Link")
                            .map(l -> l.replaceFirst("^<([^>]*)>; rel=\"next\"$", "$1"))
                            .orElse(null);
            if (next != null) {
                assertThat(next).startsWith("/api/v1/runs?").contains("threadId=" + thread);
            }
            assertThat(++pages).isLessThanOrEqualTo(4);
        }
        assertThat(seen).containsExactlyElementsOf(started);
        assertThat(
                        api.get("/api/v1/runs?threadId=" + thread + "&limit=3", Api.TENANT_A)
                                .headers()
                                .firstValue("Link"))
                .isEmpty();
        // Another tenant's filter sees none of them, cursor or not.
        assertThat(Api.json(api.get("/api/v1/runs?threadId=" + thread, Api.TENANT_B)).asJsonArray())
                .isEmpty();

        assertThat(
                        assertProblem(
                                        api.get("/api/v1/runs?limit=0", Api.TENANT_A),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("limit");
        assertProblem(api.get("/api/v1/runs?limit=201", Api.TENANT_A), 400, "invalid-request");
        assertProblem(api.get("/api/v1/runs?limit=x", Api.TENANT_A), 400, "invalid-request");
        assertThat(
                        assertProblem(
                                        api.get(
                                                "/api/v1/runs?cursor=bm90LWEtY3Vyc29y",
                                                Api.TENANT_A),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("cursor");
    }

    /** {@code agentbox_runs_driving} as the server publishes it now. */
    private double driving() {
        String text = api.send(api.request("/metrics?scope=application").GET()).body();
        return text.lines()
                .filter(
                        l ->
                                l.startsWith("agentbox_runs_driving{")
                                        || l.startsWith("agentbox_runs_driving "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no agentbox_runs_driving in " + text));
    }
}
