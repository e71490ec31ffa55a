package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.AgUiWire;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The real JavaScript clients, unmodified, against the AG-UI agent endpoint ({@code
 * /api/v1/agents/{agentId}}): {@code @ag-ui/client}'s HttpAgent and {@code @tanstack/ai-client}'s
 * fetchServerSentEvents (connect through a connection cut mid-run, joinRun, hydrate). The scripts
 * live in {@code src/test/node}; each also runs the chunks it received through
 * {@code @ag-ui/core}'s EventSchema and {@code @ag-ui/client}'s verifyEvents. What the clients
 * received is compared with the run's stored log: the same chunks in the same order, none twice,
 * none missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgUiClientsIT {

    /**
     * Echoes the prompt (read on stdin) word by word, 200 ms apart, so that a client is still
     * reading when its connection is cut. The prompts are plain words: nothing to escape in JSON.
     */
    static final String AGENT =
            "set -f; p=$(cat); printf '{\"delta\":\"echo:\"}\\n';"
                    + " for w in $p; do sleep 0.2; printf '{\"delta\":\" %s\"}\\n' \"$w\"; done";

    private final Api api = Api.itServer();
    private final NodeScripts node = new NodeScripts();
    private final String agentId = "agui-clients-" + UUID.randomUUID();
    private final Set<String> threads = ConcurrentHashMap.newKeySet();
    private FinishedRun finished;

    /** A run made through HttpAgent, and what agui-http-agent.mjs printed about it. */
    private record FinishedRun(String threadId, String runId, String prompt, JsonObject out) {}

    @BeforeAll
    void defineTheAgent() {
        node.requireInstalled();
        String sandbox = "{\"definitionId\":\"agui-clients-" + UUID.randomUUID() + "\"}";
        HttpResponse<String> put =
                api.send(
                        api.request(agentPath(), Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .PUT(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"sandbox\":"
                                                        + sandbox
                                                        + ",\"harness\":\"command\",\"command\":"
                                                        + Runs.jsonString(AGENT)
                                                        + "}")));
        assertThat(put.statusCode()).as("PUT %s: %s", agentPath(), put.body()).isIn(200, 201);
    }

    /** Deletes the definition and the sandboxes of its threads (each thread gets its own). */
    @AfterAll
    void cleanUp() {
        api.send(api.request(agentPath(), Api.TENANT_A).DELETE());
        for (JsonObject s :
                Api.json(api.get("/api/v1/sandboxes", Api.TENANT_A))
                        .asJsonArray()
                        .getValuesAs(JsonObject.class)) {
            if (threads.contains(s.getString("threadId", ""))) {
                api.send(
                        api.request("/api/v1/sandboxes/" + s.getString("key"), Api.TENANT_A)
                                .DELETE());
            }
        }
    }

    /** AG-12: HttpAgent.runAgent, unmodified. */
    @Test
    void httpAgentRunsTheAgentAndItsAnswerIsTheNewAssistantMessage() {
        FinishedRun run = finishedRun();

        List<JsonObject> added =
                run.out().getJsonArray("newMessages").getValuesAs(JsonObject.class);
        assertThat(added)
                .as("the messages the run added")
                .singleElement()
                .satisfies(
                        m -> {
                            assertThat(m.getString("role")).isEqualTo("assistant");
                            assertThat(m.getString("content")).isEqualTo("echo: " + run.prompt());
                        });
        assertThat(chunks(run.out())).as("chunks HttpAgent read").isEqualTo(log(run.runId()));
        // The client removes (with a warning) every member AG-UI does not name: there is none.
        assertThat(run.out().getJsonArray("warnings").getValuesAs(JsonString.class))
                .as("@ag-ui/client warnings")
                .noneMatch(w -> w.getString().contains("[ag-ui]"));
        assertValid(run.out());
    }

    /** AG-13: connect through a cut connection resumes with Last-Event-ID, every chunk once. */
    @Test
    void tanstackConnectResumesAfterTheConnectionIsCutAndGetsEveryChunkOnce() {
        String threadId = "t-" + UUID.randomUUID();
        String runId = "r-" + UUID.randomUUID();
        JsonObject out =
                succeeded(
                        "tanstack-connect.mjs",
                        options(threadId, runId)
                                .add("prompt", "one two three four five six seven eight")
                                .add("cutAfterContents", 2)
                                .build());

        assertThat(out.getBoolean("cut")).as("the proxy cut the first connection").isTrue();
        assertThat(out.getInt("connections"))
                .as("the client reconnected after the cut")
                .isGreaterThanOrEqualTo(2);
        assertThat(chunks(out)).as("chunks received across the cut").isEqualTo(log(runId));
        assertValid(out);
    }

    /** AG-13: joinRun of a finished run replays it. */
    @Test
    void tanstackJoinRunReplaysAFinishedRunWhole() {
        FinishedRun run = finishedRun();
        JsonObject out =
                succeeded(
                        "tanstack-join.mjs",
                        base().add("agentId", agentId).add("runId", run.runId()).build());

        assertThat(chunks(out)).isEqualTo(log(run.runId()));
        assertValid(out);
    }

    /** AG-13: hydrate returns the messages and activeRun null. */
    @Test
    void tanstackHydrateGivesTheThreadsMessagesAndNoActiveRun() {
        FinishedRun run = finishedRun();
        JsonObject out =
                succeeded(
                        "tanstack-hydrate.mjs",
                        base().add("agentId", agentId).add("threadId", run.threadId()).build());

        List<JsonObject> messages = out.getJsonArray("messages").getValuesAs(JsonObject.class);
        assertThat(messages)
                .extracting(m -> m.getString("role"))
                .containsExactly("user", "assistant");
        assertThat(text(messages.get(0))).isEqualTo(run.prompt());
        assertThat(text(messages.get(1))).isEqualTo("echo: " + run.prompt());
        assertThat(out.get("activeRun")).isEqualTo(JsonValue.NULL);
    }

    /**
     * One run through HttpAgent (runAgent resolves once the run has finished), made once and shared
     * by the tests that need a finished run.
     */
    private synchronized FinishedRun finishedRun() {
        if (finished == null) {
            String threadId = "t-" + UUID.randomUUID();
            String runId = "r-" + UUID.randomUUID();
            String prompt = "hello from the agui client";
            JsonObject out =
                    succeeded(
                            "agui-http-agent.mjs",
                            options(threadId, runId).add("prompt", prompt).build());
            finished = new FinishedRun(threadId, runId, prompt, out);
        }
        return finished;
    }

    private JsonObject succeeded(String script, JsonObject options) {
        NodeScripts.Result r = node.run(script, options);
        assertThat(r.exitCode()).as("%s exit code; it printed %s", script, r.json()).isZero();
        if (!r.json().getJsonArray("warnings").isEmpty()) {
            System.out.println(script + " warnings: " + r.json().getJsonArray("warnings"));
        }
        return r.json();
    }

    private static void assertValid(JsonObject out) {
        assertThat(out.getJsonArray("failures"))
                .as("EventSchema + verifyEvents on the chunks received")
                .isEmpty();
    }

    private jakarta.json.JsonObjectBuilder base() {
        return Json.createObjectBuilder().add("baseUrl", api.baseUrl()).add("token", Api.TENANT_A);
    }

    private jakarta.json.JsonObjectBuilder options(String threadId, String runId) {
        threads.add(threadId);
        return base().add("agentId", agentId).add("threadId", threadId).add("runId", runId);
    }

    private static List<JsonObject> chunks(JsonObject out) {
        return out.getJsonArray("chunks").getValuesAs(JsonObject.class);
    }

    private List<JsonObject> log(String runId) {
        HttpResponse<String> r = api.get(Runs.path(runId) + "/log", Api.TENANT_A);
        assertThat(r.statusCode()).as("GET log: %s", r.body()).isEqualTo(200);
        // As the agent endpoints send them: only the members AG-UI names for each event.
        return Api.json(r).asJsonArray().getValuesAs(JsonObject.class).stream()
                .map(e -> AgUiWire.of(e.getJsonObject("chunk")))
                .toList();
    }

    /** A UIMessage's text: its text parts' content, in order. */
    private static String text(JsonObject message) {
        StringBuilder text = new StringBuilder();
        for (JsonObject part : message.getJsonArray("parts").getValuesAs(JsonObject.class)) {
            if ("text".equals(part.getString("type"))) {
                text.append(part.getString("content"));
            }
        }
        return text.toString();
    }

    private String agentPath() {
        return "/api/v1/agents/" + agentId;
    }
}
