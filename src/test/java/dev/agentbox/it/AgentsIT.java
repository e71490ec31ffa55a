package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.testing.AgUiAssert;
import dev.agentbox.testing.PostgresPass;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The AG-UI agent endpoint end to end, driven the way AG-UI clients drive it: definitions, a POST
 * of a RunAgentInput answered with SSE (also without {@code Accept}), resumption by runId and
 * Last-Event-ID, joining a run, a thread's transcript, thread continuation in the same sandbox.
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentsIT {

    /**
     * An agent that prints the turn number of its sandbox (a counter file in /tmp: it survives only
     * if the thread's next run reuses the sandbox) and then every line of its stdin as a delta.
     */
    static final String ECHO =
            "n=$(cat /tmp/agent-turns 2>/dev/null || echo 0); n=$((n+1)); echo $n > /tmp/agent-turns; "
                    + "printf '{\"delta\":\"turn %s\\\\n\"}\\n' \"$n\"; "
                    + "while IFS= read -r l || [ -n \"$l\" ]; do "
                    + "e=$(printf '%s' \"$l\" | sed 's/\\\\/\\\\\\\\/g; s/\"/\\\\\"/g'); "
                    + "printf '{\"delta\":\"%s\\\\n\"}\\n' \"$e\"; done";

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Api api = Api.itServer();
    private final String prefix = "agents-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<String[]> madeAgents = new ArrayList<>();

    record Event(String id, String name, JsonObject data) {
        /** The text of {@code events}: their {@code TEXT_MESSAGE_CONTENT} deltas, joined. */
        static String text(List<Event> events) {
            return events.stream()
                    .filter(e -> e.name().equals("TEXT_MESSAGE_CONTENT"))
                    .map(e -> e.data().getString("delta"))
                    .reduce("", String::concat);
        }
    }

    @AfterAll
    void cleanUp() {
        for (String[] a : madeAgents) {
            api.send(api.request("/api/v1/agents/" + a[1], a[0]).DELETE());
        }
        try (Sandboxes a = new Sandboxes(api, Api.TENANT_A);
                Sandboxes b = new Sandboxes(api, Api.TENANT_B)) {
            for (Sandboxes s : List.of(a, b)) {
                String token = s == a ? Api.TENANT_A : Api.TENANT_B;
                for (JsonValue v : (JsonArray) Api.json(api.get("/api/v1/sandboxes", token))) {
                    JsonObject sb = v.asJsonObject();
                    if (sb.toString().contains(prefix)) {
                        s.delete(sb.getString("key"));
                    }
                }
            }
        }
    }

    private String definition(String command) {
        return Json.createObjectBuilder()
                .add("sandbox", Json.createObjectBuilder().add("definitionId", prefix))
                .add("harness", "command")
                .add("command", command)
                .build()
                .toString();
    }

    private HttpResponse<String> put(String token, String agentId, String body) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/agents/" + agentId, token)
                                .header("Content-Type", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString(body)));
        if (r.statusCode() == 201) {
            madeAgents.add(new String[] {token, agentId});
        }
        return r;
    }

    private String newAgent(String token, String command) {
        String agentId = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(put(token, agentId, definition(command)).statusCode()).isEqualTo(201);
        return agentId;
    }

    /** A RunAgentInput with these messages as [role, id, text] triples. */
    static String input(String threadId, String runId, String[]... messages) {
        JsonArrayBuilder a = Json.createArrayBuilder();
        for (String[] m : messages) {
            a.add(
                    Json.createObjectBuilder()
                            .add("id", m[1])
                            .add("role", m[0])
                            .add("content", m[2]));
        }
        return Json.createObjectBuilder()
                .add("threadId", threadId)
                .add("runId", runId)
                .add("messages", a)
                .add("tools", JsonValue.EMPTY_JSON_ARRAY)
                .add("context", JsonValue.EMPTY_JSON_ARRAY)
                .add("state", JsonValue.EMPTY_JSON_OBJECT)
                .add("forwardedProps", JsonValue.EMPTY_JSON_OBJECT)
                // what @tanstack/ai-client sends besides the AG-UI members
                .add("data", JsonValue.EMPTY_JSON_OBJECT)
                .add("parentRunId", JsonValue.NULL)
                .build()
                .toString();
    }

    private HttpRequest.Builder post(String token, String agentId, String body) {
        return api.request("/api/v1/agents/" + agentId, token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    /** Sends the request as it is (no Accept unless it has one) and reads SSE to the end. */
    static List<Event> readSse(HttpRequest.Builder request) {
        try {
            HttpRequest built = request.build();
            HttpResponse<InputStream> r =
                    HTTP.send(built, HttpResponse.BodyHandlers.ofInputStream());
            // Every whole stream read here also goes through the clients' own checks (AG-14).
            AgUiStreams.Recording recording = AgUiStreams.sse(built, r.statusCode());
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("Content-Type"))
                        .get()
                        .asString()
                        .startsWith("text/event-stream");
                List<Event> events = new ArrayList<>();
                String id = null;
                String name = null;
                StringBuilder data = null;
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (data != null) {
                            events.add(new Event(id, name, Api.parse(data.toString())));
                            recording.event(name, data.toString());
                        }
                        id = null;
                        name = null;
                        data = null;
                    } else if (line.startsWith("id:")) {
                        id = line.substring(3).trim();
                    } else if (line.startsWith("event:")) {
                        name = line.substring(6).trim();
                    } else if (line.startsWith("data:")) {
                        String d = line.substring(5).stripLeading();
                        data = data == null ? new StringBuilder(d) : data.append('\n').append(d);
                    }
                }
                return events;
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String text(List<Event> events) {
        return events.stream()
                .filter(e -> e.name().equals("TEXT_MESSAGE_CONTENT"))
                .map(e -> e.data().getString("delta"))
                .collect(Collectors.joining());
    }

    /**
     * A whole run as AG-UI clients accept it: AG-UI events with nothing AG-UI does not name, a
     * valid sequence, one run, offsets increasing.
     */
    private static void assertCompleteRun(List<Event> events, String runId) {
        assertThat(events).isNotEmpty();
        String threadId = events.get(0).data().getString("threadId");
        AgUiAssert.assertValidAgUiWire(events.stream().map(Event::data).toList(), threadId, runId);
        assertThat(events.get(0).data().getString("runId")).isEqualTo(runId);
        assertThat(events.get(events.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(events.get(events.size() - 1).data().getString("runId")).isEqualTo(runId);
        List<Long> ids = events.stream().map(e -> Long.parseLong(e.id())).toList();
        assertThat(ids).isSorted().doesNotHaveDuplicates();
    }

    private static String[] user(String id, String text) {
        return new String[] {"user", id, text};
    }

    private static String[] assistant(String id, String text) {
        return new String[] {"assistant", id, text};
    }

    /** AG-01: definitions are created, replaced, read, listed and deleted per tenant. */
    @Test
    void definitionsAreCreatedReplacedListedAndDeletedPerTenant() {
        String id = prefix + "-crud-b";
        HttpResponse<String> created = put(Api.TENANT_A, id, definition("true"));
        assertThat(created.statusCode()).isEqualTo(201);
        JsonObject view = Api.object(created);
        assertThat(view.getString("agentId")).isEqualTo(id);
        assertThat(view.getString("harness")).isEqualTo("command");
        assertThat(view.getString("command")).isEqualTo("true");
        assertThat(view.getBoolean("durable")).isTrue();
        assertThat(view.getJsonObject("sandbox").getString("definitionId")).isEqualTo(prefix);

        HttpResponse<String> replaced = put(Api.TENANT_A, id, definition("echo replaced"));
        assertThat(replaced.statusCode()).isEqualTo(200);
        JsonObject after = Api.object(replaced);
        assertThat(after.getString("command")).isEqualTo("echo replaced");
        assertThat(after.getString("createdAt")).isEqualTo(view.getString("createdAt"));
        assertThat(after.getString("updatedAt"))
                .isGreaterThanOrEqualTo(view.getString("updatedAt"));
        assertThat(Api.object(api.get("/api/v1/agents/" + id, Api.TENANT_A))).isEqualTo(after);

        String second = prefix + "-crud-a";
        put(Api.TENANT_A, second, definition("true"));
        List<String> listed =
                ((JsonArray) Api.json(api.get("/api/v1/agents", Api.TENANT_A)))
                        .stream()
                                .map(v -> v.asJsonObject().getString("agentId"))
                                .filter(a -> a.startsWith(prefix + "-crud-"))
                                .toList();
        assertThat(listed).containsExactly(second, id);

        // Another tenant sees nothing of it, and its own definition of the same id is its own.
        assertProblem(api.get("/api/v1/agents/" + id, Api.TENANT_B), 404, "agent-not-found");
        assertThat(api.get("/api/v1/agents", Api.TENANT_B).body()).doesNotContain(id);
        assertProblem(
                api.send(api.request("/api/v1/agents/" + id, Api.TENANT_B).DELETE()),
                404,
                "agent-not-found");
        assertThat(put(Api.TENANT_B, id, definition("echo b")).statusCode()).isEqualTo(201);
        assertThat(Api.object(api.get("/api/v1/agents/" + id, Api.TENANT_A)).getString("command"))
                .isEqualTo("echo replaced");

        assertThat(
                        api.send(api.request("/api/v1/agents/" + id, Api.TENANT_A).DELETE())
                                .statusCode())
                .isEqualTo(204);
        assertProblem(
                api.send(api.request("/api/v1/agents/" + id, Api.TENANT_A).DELETE()),
                404,
                "agent-not-found");
        assertProblem(api.get("/api/v1/agents/" + id, Api.TENANT_A), 404, "agent-not-found");
        assertThat(api.get("/api/v1/agents/" + id, Api.TENANT_B).statusCode()).isEqualTo(200);
    }

    /** AG-02: a bad definition is a 400 naming the field. */
    @Test
    void badDefinitionsAreRefusedNamingTheField() {
        String id = prefix + "-bad";
        assertField(
                put(
                        Api.TENANT_A,
                        id,
                        "{\"sandbox\":{\"workspace\":{\"secrets\":{\"K\":\"v\"}}},\"harness\":\"command\",\"command\":\"true\"}"),
                "sandbox.workspace.secrets");
        assertField(
                put(
                        Api.TENANT_A,
                        id,
                        "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\",\"prompt\":\"x\"}"),
                "prompt");
        assertField(put(Api.TENANT_A, id, "{\"sandbox\":{},\"harness\":\"command\"}"), "command");
        assertField(
                put(Api.TENANT_A, id, "{\"sandbox\":{},\"harness\":\"shell\",\"command\":\"x\"}"),
                "harness");
        assertField(
                put(
                        Api.TENANT_A,
                        id,
                        "{\"sandbox\":{\"polcy\":{}},\"harness\":\"command\",\"command\":\"true\"}"),
                "sandbox.polcy");
        assertField(put(Api.TENANT_A, ".hidden", definition("true")), "agentId");
        assertField(put(Api.TENANT_A, "a%20b", definition("true")), "agentId");
        assertField(put(Api.TENANT_A, "x".repeat(201), definition("true")), "agentId");
        assertProblem(api.get("/api/v1/agents/" + id, Api.TENANT_A), 404, "agent-not-found");
    }

    /** AG-03: a body that is not a RunAgentInput is a 400 naming the field. */
    @Test
    void badRunInputsAreRefusedNamingTheField() {
        String agentId = newAgent(Api.TENANT_A, ECHO);
        assertProblem(
                api.send(post(Api.TENANT_A, prefix + "-nobody", input("t", "r", user("u", "hi")))),
                404,
                "agent-not-found");
        String ok = input("t", "r", user("u", "hi"));
        assertField(
                api.send(post(Api.TENANT_A, agentId, ok.replace("\"threadId\"", "\"thread\""))),
                "threadId");
        assertField(
                api.send(post(Api.TENANT_A, agentId, ok.replace("\"runId\"", "\"run\""))), "runId");
        assertField(
                api.send(post(Api.TENANT_A, agentId, "{\"threadId\":\"t\",\"runId\":\"r\"}")),
                "messages");
        assertField(
                api.send(
                        post(
                                Api.TENANT_A,
                                agentId,
                                "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":\"1\",\"role\":\"user\",\"content\":\"a\"},{\"id\":\"2\",\"content\":\"b\"}]}")),
                "messages[1].role");
        assertField(
                api.send(
                        post(
                                Api.TENANT_A,
                                agentId,
                                input("t", "r", assistant("a", "only an answer")))),
                "messages");
        assertField(
                api.send(
                        post(
                                Api.TENANT_A,
                                agentId,
                                ok.replace(
                                        "\"forwardedProps\":{}",
                                        "\"forwardedProps\":{\"agentbox\":{\"secrets\":[\"x\"]}}"))),
                "forwardedProps.agentbox.secrets");
        assertThat(api.get("/api/v1/runs?threadId=t", Api.TENANT_A).body())
                .doesNotContain("\"runId\":\"r\"");
    }

    private static void assertField(HttpResponse<String> r, String field) {
        JsonObject p = assertProblem(r, 400, "invalid-request");
        assertThat(p.getString("field")).isEqualTo(field);
    }

    /**
     * AG-04, AG-05, AG-06: the POST streams the run, a repeat with Last-Event-ID the remainder, a
     * GET with offset -1 and runId joins it.
     */
    @Test
    void aPostStreamsTheRunAndItsResumptionGivesExactlyTheRemainder() {
        String agentId = newAgent(Api.TENANT_A, ECHO);
        String thread = prefix + "-t-" + UUID.randomUUID();
        String runId = "r-" + UUID.randomUUID();
        String body = input(thread, runId, user("m-1", "say \"hello\" back"));

        // @tanstack/ai-client sends no Accept at all.
        List<Event> full = readSse(post(Api.TENANT_A, agentId, body));
        assertCompleteRun(full, runId);
        assertThat(text(full)).isEqualTo("turn 1\nsay \"hello\" back\n");

        // A repeated POST with Last-Event-ID (and X-Run-Id) resumes after that offset.
        int k = full.size() / 2;
        List<Event> rest =
                readSse(
                        post(Api.TENANT_A, agentId, body)
                                .header("Last-Event-ID", full.get(k).id())
                                .header("X-Run-Id", runId));
        assertThat(rest).isEqualTo(full.subList(k + 1, full.size()));

        // Without Last-Event-ID (and with Accept: */*) it replays from the start; no second run.
        List<Event> replay = readSse(post(Api.TENANT_A, agentId, body).header("Accept", "*/*"));
        assertThat(replay).isEqualTo(full);
        JsonArray threadRuns =
                (JsonArray) Api.json(api.get("/api/v1/runs?threadId=" + thread, Api.TENANT_A));
        assertThat(threadRuns).hasSize(1);

        // Joining: GET ?offset=-1&runId=R replays and ends, with no Accept and with */*.
        String join = "/api/v1/agents/" + agentId + "?offset=-1&runId=" + runId;
        assertThat(readSse(api.request(join, Api.TENANT_A).GET())).isEqualTo(full);
        assertThat(readSse(api.request(join, Api.TENANT_A).header("Accept", "*/*").GET()))
                .isEqualTo(full);
        assertThat(
                        readSse(
                                api.request(join, Api.TENANT_A)
                                        .header("Last-Event-ID", full.get(k).id())
                                        .GET()))
                .isEqualTo(full.subList(k + 1, full.size()));
        assertProblem(
                api.get("/api/v1/agents/" + agentId + "?offset=-1&runId=nope", Api.TENANT_A),
                404,
                "not-found");

        // The same runId for another thread or another agent is refused.
        assertProblem(
                api.send(post(Api.TENANT_A, agentId, input(thread + "-x", runId, user("m", "x")))),
                409,
                "run-exists");
        String other = newAgent(Api.TENANT_A, ECHO);
        assertProblem(
                api.send(post(Api.TENANT_A, other, input(thread, runId, user("m", "x")))),
                409,
                "run-exists");
    }

    /**
     * AG-07: the thread's transcript has its messages, the active run while live and null after.
     */
    @Test
    void theThreadTranscriptHasTheUserAndAssistantMessagesAndTheActiveRun() {
        String agentId = newAgent(Api.TENANT_A, "sleep 3; " + ECHO);
        String thread = prefix + "-t-" + UUID.randomUUID();
        String runId = "r-" + UUID.randomUUID();
        String transcript = "/api/v1/agents/" + agentId + "?threadId=" + thread;
        try (SseClient live =
                SseClient.open(
                        post(Api.TENANT_A, agentId, input(thread, runId, user("u-1", "ping"))))) {
            assertThat(live.status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                            () ->
                                    assertThat(
                                                    Api.object(api.get(transcript, Api.TENANT_A))
                                                            .getJsonObject("activeRun")
                                                            .getString("runId"))
                                            .isEqualTo(runId));
            Runs.drain(live, Duration.ofSeconds(60));
        }
        JsonObject t = Api.object(api.get(transcript, Api.TENANT_A));
        assertThat(t.get("activeRun")).isEqualTo(JsonValue.NULL);
        assertThat(t.get("interrupts")).isEqualTo(JsonValue.NULL);
        JsonArray messages = t.getJsonArray("messages");
        assertThat(messages).hasSize(2);
        JsonObject u = messages.getJsonObject(0);
        assertThat(u.getString("id")).isEqualTo("u-1");
        assertThat(u.getString("role")).isEqualTo("user");
        assertThat(u.getJsonArray("parts"))
                .containsExactly(
                        Json.createObjectBuilder()
                                .add("type", "text")
                                .add("content", "ping")
                                .build());
        assertThat(java.time.Instant.parse(u.getString("createdAt"))).isNotNull();
        JsonObject a = messages.getJsonObject(1);
        assertThat(a.getString("role")).isEqualTo("assistant");
        assertThat(a.getJsonArray("parts").getJsonObject(0).getString("type")).isEqualTo("text");
        assertThat(a.getJsonArray("parts").getJsonObject(0).getString("content"))
                .isEqualTo("turn 1\nping\n");
        assertThat(java.time.Instant.parse(a.getString("createdAt"))).isNotNull();

        assertProblem(
                api.get("/api/v1/agents/" + prefix + "-nobody?threadId=" + thread, Api.TENANT_A),
                404,
                "agent-not-found");
        assertProblem(api.get(transcript, Api.TENANT_B), 404, "agent-not-found");
    }

    /**
     * AG-24: an agent's threads list newest turn first, titled by their first prompt, counting
     * their turns; another tenant and an unknown agent get {@code 404}, a bad limit {@code 400}.
     */
    @Test
    void theAgentsThreadsAreListedNewestTurnFirstWithTheirFirstPromptAsTitle_AG24() {
        String agentId = newAgent(Api.TENANT_A, ECHO);
        String older = prefix + "-t-" + UUID.randomUUID();
        String newer = prefix + "-t-" + UUID.randomUUID();
        String threads = "/api/v1/agents/" + agentId + "/threads";
        assertThat(Api.json(api.get(threads, Api.TENANT_A)).asJsonArray()).isEmpty();

        readSse(
                post(
                        Api.TENANT_A,
                        agentId,
                        input(
                                older,
                                "r-" + UUID.randomUUID(),
                                user("u-1", "fix the build\nand more"))));
        readSse(
                post(
                        Api.TENANT_A,
                        agentId,
                        input(newer, "r-" + UUID.randomUUID(), user("u-2", "write the docs"))));
        readSse(
                post(
                        Api.TENANT_A,
                        agentId,
                        input(
                                older,
                                "r-" + UUID.randomUUID(),
                                user("u-1", "fix the build\nand more"),
                                assistant("a-1", "done"),
                                user("u-3", "now the tests"))));

        List<JsonObject> listed =
                Api.json(api.get(threads, Api.TENANT_A))
                        .asJsonArray()
                        .getValuesAs(JsonObject.class);
        assertThat(listed).extracting(o -> o.getString("threadId")).containsExactly(older, newer);
        assertThat(listed.get(0).getString("title")).isEqualTo("fix the build");
        assertThat(listed.get(0).getJsonNumber("turns").longValue()).isEqualTo(2);
        assertThat(listed.get(1).getString("title")).isEqualTo("write the docs");
        assertThat(listed.get(1).getJsonNumber("turns").longValue()).isEqualTo(1);
        assertThat(java.time.Instant.parse(listed.get(0).getString("updatedAt")))
                .isAfter(java.time.Instant.parse(listed.get(0).getString("createdAt")));
        assertThat(Api.json(api.get(threads + "?limit=1", Api.TENANT_A)).asJsonArray()).hasSize(1);

        assertProblem(api.get(threads, Api.TENANT_B), 404, "agent-not-found");
        assertProblem(
                api.get("/api/v1/agents/" + prefix + "-nobody/threads", Api.TENANT_A),
                404,
                "agent-not-found");
        HttpResponse<String> bad = api.get(threads + "?limit=0", Api.TENANT_A);
        assertProblem(bad, 400, "invalid-request");
        assertField(bad, "limit");
    }

    /** AG-08: a second turn runs in the same sandbox and sees the earlier messages. */
    @Test
    void theSecondTurnOfAThreadReusesItsSandboxAndSeesTheEarlierMessages() {
        String agentId = newAgent(Api.TENANT_A, ECHO);
        String thread = prefix + "-t-" + UUID.randomUUID();
        String first = "r-" + UUID.randomUUID();
        List<Event> one =
                readSse(post(Api.TENANT_A, agentId, input(thread, first, user("u-1", "one"))));
        assertCompleteRun(one, first);
        String answer = text(one);

        String second = "r-" + UUID.randomUUID();
        List<Event> two =
                readSse(
                        post(
                                Api.TENANT_A,
                                agentId,
                                input(
                                        thread,
                                        second,
                                        user("u-1", "one"),
                                        assistant("a-1", answer.strip()),
                                        user("u-2", "two"))));
        assertCompleteRun(two, second);
        assertThat(text(two))
                .startsWith("turn 2\n")
                .contains("user: one\n")
                .contains("assistant: turn 1")
                .endsWith("two\n");

        // Another thread of the same agent gets a sandbox of its own.
        String elsewhere = "r-" + UUID.randomUUID();
        List<Event> other =
                readSse(
                        post(
                                Api.TENANT_A,
                                agentId,
                                input(thread + "-other", elsewhere, user("u-9", "three"))));
        assertThat(text(other)).isEqualTo("turn 1\nthree\n");

        JsonArray messages =
                Api.object(
                                api.get(
                                        "/api/v1/agents/" + agentId + "?threadId=" + thread,
                                        Api.TENANT_A))
                        .getJsonArray("messages");
        assertThat(messages.stream().map(m -> m.asJsonObject().getString("role")).toList())
                .containsExactly("user", "assistant", "user", "assistant");
        assertThat(messages.getJsonObject(2).getString("id")).isEqualTo("u-2");
    }

    /** AG-09: another tenant's runId is a new run of this tenant. */
    @Test
    void anotherTenantsRunIdIsANewRunForThisTenant() {
        String a = newAgent(Api.TENANT_A, ECHO);
        String b = newAgent(Api.TENANT_B, ECHO);
        String thread = prefix + "-t-" + UUID.randomUUID();
        String runId = "r-" + UUID.randomUUID();
        List<Event> ofA = readSse(post(Api.TENANT_A, a, input(thread, runId, user("u", "from a"))));
        List<Event> ofB = readSse(post(Api.TENANT_B, b, input(thread, runId, user("u", "from b"))));
        assertCompleteRun(ofA, runId);
        assertCompleteRun(ofB, runId);
        assertThat(text(ofA)).endsWith("from a\n");
        assertThat(text(ofB)).endsWith("from b\n");
        assertProblem(
                api.get("/api/v1/agents/" + a + "?offset=-1&runId=" + runId, Api.TENANT_B),
                404,
                "agent-not-found");
    }

    /** AG-09: a runId of a plain run is 409 run-exists. */
    @Test
    void aRunIdOfAPlainRunIsRefusedAndANewRunStreamsFromItsStart() {
        String agentId = newAgent(Api.TENANT_A, ECHO);
        String thread = prefix + "-t-" + UUID.randomUUID();
        String plain = "r-" + UUID.randomUUID();
        new Runs(api, Api.TENANT_A)
                .start(
                        Runs.runBody(
                                plain,
                                "{\"definitionId\":\""
                                        + prefix
                                        + "\",\"threadId\":\""
                                        + thread
                                        + "\"}",
                                "true",
                                ""));
        assertProblem(
                api.send(post(Api.TENANT_A, agentId, input(thread, plain, user("u", "x")))),
                409,
                "run-exists");
        assertProblem(
                api.get("/api/v1/agents/" + agentId + "?offset=-1&runId=" + plain, Api.TENANT_A),
                404,
                "not-found");

        // A first POST that already carries a Last-Event-ID still gets the whole run.
        String runId = "r-" + UUID.randomUUID();
        List<Event> events =
                readSse(
                        post(Api.TENANT_A, agentId, input(thread, runId, user("u", "fresh")))
                                .header("Last-Event-ID", "3"));
        assertCompleteRun(events, runId);
        assertThat(events.get(0).id()).as("the log's first offset").isEqualTo("1");
        assertThat(text(events)).isEqualTo("turn 1\nfresh\n");
    }

    /** AG-10: forwarded secrets reach the sandbox and are stored or shown nowhere. */
    @Test
    void secretsFromForwardedPropsReachTheSandboxAndAreNeverStoredOrShown() {
        String secret = "s3cret-" + UUID.randomUUID();
        String agentId =
                newAgent(
                        Api.TENANT_A,
                        // The check must not hold the secret itself: the definition is stored.
                        "cat >/dev/null; case \"${#AGENT_TOKEN}:$AGENT_TOKEN\" in 43:s3cret-*) "
                                + "printf '{\"delta\":\"secret ok\"}\\n';; "
                                + "*) printf '{\"delta\":\"no secret\"}\\n';; esac");
        String thread = prefix + "-t-" + UUID.randomUUID();
        String runId = "r-" + UUID.randomUUID();
        String body =
                input(thread, runId, user("u", "use it"))
                        .replace(
                                "\"forwardedProps\":{}",
                                "\"forwardedProps\":{\"agentbox\":{\"secrets\":{\"AGENT_TOKEN\":\""
                                        + secret
                                        + "\"}}}");

        List<Event> events = readSse(post(Api.TENANT_A, agentId, body));

        assertCompleteRun(events, runId);
        assertThat(text(events)).isEqualTo("secret ok");
        assertThat(api.get("/api/v1/agents/" + agentId, Api.TENANT_A).body())
                .doesNotContain(secret);
        assertThat(
                        api.get("/api/v1/agents/" + agentId + "?threadId=" + thread, Api.TENANT_A)
                                .body())
                .doesNotContain(secret);
        assertThat(api.get(Runs.path(runId), Api.TENANT_A).body()).doesNotContain(secret);
        assertThat(api.get(Runs.path(runId) + "/log", Api.TENANT_A).body()).doesNotContain(secret);
    }

    /** AG-11: a named secret set reaches the sandbox; another tenant naming it is a 400. */
    @Test
    void aNamedSecretSetOfTheTenantReachesTheSandboxAndAnotherTenantCannotNameIt()
            throws Exception {
        String set = prefix + "-set";
        String secret = "s3cret-" + UUID.randomUUID();
        Path dir =
                Files.createDirectories(
                        Path.of(System.getProperty("agentbox.it.secret-sets-dir"))
                                .resolve("tenant-a")
                                .resolve(set));
        Files.writeString(dir.resolve("AGENT_TOKEN"), secret);
        // The definition names neither the set nor the secret: the run asks for the set.
        String check =
                "cat >/dev/null; case \"${#AGENT_TOKEN}:$AGENT_TOKEN\" in 43:s3cret-*) "
                        + "printf '{\"delta\":\"secret ok\"}\\n';; "
                        + "*) printf '{\"delta\":\"no secret\"}\\n';; esac";
        String agentA = newAgent(Api.TENANT_A, check);
        String runId = "r-" + UUID.randomUUID();
        String body =
                input(prefix + "-t-" + UUID.randomUUID(), runId, user("u", "use the set"))
                        .replace(
                                "\"forwardedProps\":{}",
                                "\"forwardedProps\":{\"agentbox\":{\"secretSet\":\""
                                        + set
                                        + "\"}}");

        List<Event> events = readSse(post(Api.TENANT_A, agentA, body));

        assertCompleteRun(events, runId);
        assertThat(text(events)).isEqualTo("secret ok");
        assertThat(api.get(Runs.path(runId), Api.TENANT_A).body()).doesNotContain(secret);
        assertThat(api.get(Runs.path(runId) + "/log", Api.TENANT_A).body()).doesNotContain(secret);

        // tenant-b names the same set: it is tenant-a's, so for tenant-b there is none.
        String agentB = newAgent(Api.TENANT_B, check);
        String bodyB =
                input(prefix + "-t-" + UUID.randomUUID(), "r-" + UUID.randomUUID(), user("u", "x"))
                        .replace(
                                "\"forwardedProps\":{}",
                                "\"forwardedProps\":{\"agentbox\":{\"secretSet\":\""
                                        + set
                                        + "\"}}");
        HttpResponse<String> refused =
                api.send(
                        api.request("/api/v1/agents/" + agentB, Api.TENANT_B)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(bodyB)));
        assertThat(assertProblem(refused, 400, "invalid-request").getString("field"))
                .isEqualTo("forwardedProps.agentbox.secretSet");
        assertThat(refused.body()).doesNotContain(secret).doesNotContain("it-secret-sets");
    }

    /**
     * A stand-in {@code claude} CLI (installed by the definition's setup): it logs a session id and
     * answers with the arguments it was called with and the prompt it read.
     */
    private static final List<String> FAKE_CLAUDE =
            List.of(
                    "#!/bin/sh",
                    "p=$(cat | tr -d '\\n\"\\\\')",
                    "printf '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"sess-42\"}\\n'",
                    "printf '{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"role\":\"assistant\","
                            + "\"content\":[{\"type\":\"text\",\"text\":\"args: %s | prompt: %s\"}]}}\\n' \"$*\" \"$p\"");

    /** AG-08: a Claude Code thread resumes the session its first run logged. */
    @Test
    void aClaudeThreadResumesTheSessionItsFirstRunLogged() {
        StringBuilder install = new StringBuilder("printf '%s\\n'");
        FAKE_CLAUDE.forEach(l -> install.append(' ').append(ShellQuote.single(l)));
        install.append(" > /usr/local/bin/claude && chmod +x /usr/local/bin/claude");
        String agentId = prefix + "-claude";
        HttpResponse<String> created =
                put(
                        Api.TENANT_A,
                        agentId,
                        Json.createObjectBuilder()
                                .add(
                                        "sandbox",
                                        Json.createObjectBuilder()
                                                .add("definitionId", prefix)
                                                .add(
                                                        "workspace",
                                                        Json.createObjectBuilder()
                                                                .add(
                                                                        "setup",
                                                                        Json.createArrayBuilder()
                                                                                .add(
                                                                                        install
                                                                                                .toString()))))
                                .add("harness", "claude-code")
                                .build()
                                .toString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String thread = prefix + "-t-" + UUID.randomUUID();

        String first = "r-" + UUID.randomUUID();
        List<Event> one =
                readSse(post(Api.TENANT_A, agentId, input(thread, first, user("u-1", "one"))));
        assertCompleteRun(one, first);
        assertThat(text(one))
                .isEqualTo(
                        "args: -p --output-format stream-json --verbose"
                                + " --permission-mode bypassPermissions | prompt: one");

        String second = "r-" + UUID.randomUUID();
        List<Event> two =
                readSse(
                        post(
                                Api.TENANT_A,
                                agentId,
                                input(
                                        thread,
                                        second,
                                        user("u-1", "one"),
                                        assistant("a-1", text(one)),
                                        user("u-2", "two"))));
        assertCompleteRun(two, second);
        assertThat(text(two))
                .as("the session resumed, the prompt alone (no transcript)")
                .isEqualTo(
                        "args: -p --output-format stream-json --verbose"
                                + " --permission-mode bypassPermissions --resume sess-42 | prompt: two");
    }
}
