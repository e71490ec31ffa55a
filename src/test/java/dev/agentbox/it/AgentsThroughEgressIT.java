package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * Also the sandboxes of runs whose test failed before deleting them, and the thread sandboxes
     * of the agents (a {@code destroyOnComplete:false} agent keeps its thread's sandbox).
     */
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
        made.track(runId);
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

    /**
     * EG-20 through a run: the tenant's gateway removed between two model calls of the real Claude
     * Code is made again by the run's refusal reader, which gives it the brokered key this server
     * holds, so the second call carries the key again.
     */
    @Test
    void aGatewayRemovedMidRunIsMadeAgainAndTheNextModelCallCarriesTheKey_EG20() {
        model.enqueue(Turn.claudeBash("sleep 8; echo slept"), Turn.text("back after the gateway"));
        String runId =
                run(
                        "e2e-claude-gateway-loss-" + UUID.randomUUID(),
                        "claude-code",
                        claudeSandbox("e2e-claude-gateway-loss"),
                        "sleep a while",
                        "");
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> !model.modelRequests().isEmpty());
        DockerCli.ok("rm", "-f", EgressWorld.gateway(EgressWorld.TENANT_A));
        List<SseClient.Event> events = transcript(runId);
        assertThat(last(events)).as(events.toString()).isEqualTo("RUN_FINISHED");
        assertThat(text(events)).contains("back after the gateway");
        assertThat(model.modelRequests()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(model.modelRequests())
                .allSatisfy(r -> assertThat(r.header("x-api-key")).contains(KEY));
        assertThat(
                        DockerCli.ok(
                                "inspect",
                                "-f",
                                "{{.State.Running}}",
                                EgressWorld.gateway(EgressWorld.TENANT_A)))
                .contains("true");
        String key = runs.get(runId).getString("sandboxKey");
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

    /**
     * A thread of a claude-code agent (the agents endpoint, its sandbox of the harness's default
     * image): the second turn resumes the CLI session of the first ({@code --resume}).
     */
    @Test
    void aClaudeThreadsNextTurnResumesTheSessionOfItsFirst() throws Exception {
        threadResumesItsSession(
                "claude-code",
                "ANTHROPIC_API_KEY",
                Json.createObjectBuilder()
                        .add("ANTHROPIC_BASE_URL", "https://" + MODEL_HOST)
                        .add("DISABLE_TELEMETRY", "1")
                        .add("DISABLE_AUTOUPDATER", "1")
                        .add("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                        .add("CLAUDE_CODE_MAX_RETRIES", "0"),
                null);
    }

    /** The same with codex: the second turn runs {@code codex exec resume <thread id>}. */
    @Test
    void aCodexThreadsNextTurnResumesTheSessionOfItsFirst() throws Exception {
        List<String> config = ScriptedModelServer.codexConfig("https://" + MODEL_HOST + "/v1", 0);
        threadResumesItsSession(
                "codex",
                "OPENAI_API_KEY",
                Json.createObjectBuilder(),
                "mkdir -p \"$HOME/.codex\" && printf '%s\\n' '"
                        + String.join("' '", config)
                        + "' > \"$HOME/.codex/config.toml\"");
    }

    /**
     * Two turns of one thread of a {@code harness} agent in an egress sandbox whose definition
     * names no image: the sandbox is the harness's default image, and the second turn resumes the
     * CLI session of the first, so the model gets the first turn's messages as the session's
     * history and the second prompt alone — not agentbox's transcript of the thread ({@code
     * [Conversation so far]}, what a turn without a session gets). The key is given as a plain
     * string: Claude Code's is brokered by default to the host of its {@code ANTHROPIC_BASE_URL},
     * Codex's (whose endpoint is in its configuration file) by the definition's {@code
     * brokeredSecrets}; the sandbox's setup adds the model host's test CA to the bundles the CLIs
     * read.
     */
    private void threadResumesItsSession(
            String harness,
            String keyVariable,
            jakarta.json.JsonObjectBuilder env,
            String extraSetup)
            throws Exception {
        String agentId = "e2e-thread-" + UUID.randomUUID().toString().substring(0, 8);
        String ca = Files.readString(Path.of("src/test/resources/egress-test-tls/ca.pem")).strip();
        jakarta.json.JsonArrayBuilder setup =
                Json.createArrayBuilder()
                        .add(
                                "for f in /etc/agentbox/egress-ca.pem /etc/agentbox/ca-bundle.pem;"
                                        + " do printf '%s\\n' "
                                        + ShellQuote.single(ca)
                                        + " >> \"$f\"; done");
        if (extraSetup != null) {
            setup.add(extraSetup);
        }
        JsonObject definition =
                Json.createObjectBuilder()
                        .add(
                                "sandbox",
                                Json.createObjectBuilder()
                                        .add("definitionId", agentId)
                                        .add(
                                                "policy",
                                                Json.createObjectBuilder()
                                                        .add("network", "egress")
                                                        .add(
                                                                "egress",
                                                                Json.createObjectBuilder()
                                                                        .add(
                                                                                "allow",
                                                                                Json
                                                                                        .createArrayBuilder()
                                                                                        .add(
                                                                                                MODEL_HOST))))
                                        .add(
                                                "workspace",
                                                Json.createObjectBuilder()
                                                        .add("env", env)
                                                        .add("setup", setup)))
                        .add("harness", harness)
                        .add(
                                "brokeredSecrets",
                                harness.equals("codex")
                                        ? Json.createObjectBuilder()
                                                .add(
                                                        keyVariable,
                                                        Json.createArrayBuilder().add(MODEL_HOST))
                                        : Json.createObjectBuilder())
                        .build();
        java.net.http.HttpResponse<String> created =
                api.send(
                        api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .PUT(
                                        java.net.http.HttpRequest.BodyPublishers.ofString(
                                                definition.toString())));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String thread = "t-" + agentId;
        String first = made.track("e2e-thread-1-" + UUID.randomUUID());
        String second = made.track("e2e-thread-2-" + UUID.randomUUID());
        String sandboxKey = null;
        try {
            model.enqueue(Turn.text("the word is heliotrope"));
            List<AgentsIT.Event> one =
                    AgentsIT.readSse(
                            agentPost(
                                    agentId,
                                    threadInput(
                                            thread,
                                            first,
                                            keyVariable,
                                            new String[] {"user", "u-1", "remember a word"})));
            assertThat(one.get(one.size() - 1).name()).as(one.toString()).isEqualTo("RUN_FINISHED");
            sandboxKey = runs.get(first).getString("sandboxKey");
            JsonObject view =
                    Api.object(
                            api.send(api.request("/api/v1/sandboxes/" + sandboxKey, Api.TENANT_A)));
            assertThat(view.getString("image"))
                    .as("the harness's default image")
                    .isEqualTo("agentbox/sandbox:agents");
            String session = sessionId(first, harness);
            int before = model.modelRequests().size();

            model.enqueue(Turn.text("you said heliotrope"));
            List<AgentsIT.Event> two =
                    AgentsIT.readSse(
                            agentPost(
                                    agentId,
                                    threadInput(
                                            thread,
                                            second,
                                            keyVariable,
                                            new String[] {"user", "u-1", "remember a word"},
                                            new String[] {
                                                "assistant", "a-1", "the word is heliotrope"
                                            },
                                            new String[] {"user", "u-2", "which word?"})));
            assertThat(two.get(two.size() - 1).name()).as(two.toString()).isEqualTo("RUN_FINISHED");
            assertThat(
                            two.stream()
                                    .filter(e -> e.name().equals("TEXT_MESSAGE_CONTENT"))
                                    .map(e -> e.data().getString("delta"))
                                    .reduce("", String::concat))
                    .contains("you said heliotrope");
            assertThat(runs.get(second).getString("sandboxKey")).isEqualTo(sandboxKey);
            List<ScriptedModelServer.RecordedRequest> asked = model.modelRequests();
            assertThat(asked).hasSizeGreaterThan(before);
            String history = asked.get(asked.size() - 1).body();
            assertThat(history)
                    .as("the resumed session's history, then the new prompt alone")
                    .contains("remember a word")
                    .contains("the word is heliotrope")
                    .contains("which word?")
                    .doesNotContain("[Conversation so far]");
            assertThat(sessionId(second, harness)).as("the resumed session").isEqualTo(session);
        } finally {
            if (sandboxKey != null) {
                sandboxes.delete(sandboxKey);
            }
            api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
        }
    }

    /** The CLI session id a run logged ({@code CUSTOM <harness>.session-id}). */
    private String sessionId(String runId, String harness) {
        return runs.transcript(runId, null).stream()
                .filter(e -> e.name().equals("CUSTOM"))
                .map(e -> Api.parse(e.data()))
                .filter(c -> c.getString("name", "").equals(harness + ".session-id"))
                .map(c -> c.getString("value"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no session id logged by " + runId));
    }

    private java.net.http.HttpRequest.Builder agentPost(String agentId, String body) {
        return api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body));
    }

    /**
     * A RunAgentInput of these [role, id, text] messages, with the model key as the secret {@code
     * keyVariable}.
     */
    private static String threadInput(
            String threadId, String runId, String keyVariable, String[]... messages) {
        jakarta.json.JsonArrayBuilder a = Json.createArrayBuilder();
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
                .add("tools", Json.createArrayBuilder())
                .add("context", Json.createArrayBuilder())
                .add("state", Json.createObjectBuilder())
                .add(
                        "forwardedProps",
                        Json.createObjectBuilder()
                                .add(
                                        "agentbox",
                                        Json.createObjectBuilder()
                                                .add(
                                                        "secrets",
                                                        Json.createObjectBuilder()
                                                                .add(keyVariable, KEY))))
                .build()
                .toString();
    }
}
