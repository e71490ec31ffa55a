package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.testing.AgUiAssert;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The claude-code and codex harnesses end to end: the sandbox gets a stand-in CLI (a script named
 * like the real one) that prints a recorded transcript of that CLI's JSON output and records the
 * arguments it was called with and what it read on stdin. The service must hand it the prompt on
 * stdin, never as an argument, and turn its output into the same chunks as the translator does
 * offline.
 */
class HarnessRunsIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    @Test
    void claudeCodeRunsTheCliWithThePromptOnStdinAndTranslatesItsStream() throws Exception {
        check(
                Harness.CLAUDE_CODE,
                "claude",
                "harness/claude-code-tool.ndjson",
                "-p\n--output-format\nstream-json\n--verbose\n--permission-mode\nbypassPermissions\n");
    }

    @Test
    void codexRunsTheCliWithThePromptOnStdinAndTranslatesItsStream() throws Exception {
        check(
                Harness.CODEX,
                "codex",
                "harness/codex-tool.jsonl",
                "exec\n--json\n--skip-git-repo-check\n--dangerously-bypass-approvals-and-sandbox\n-\n");
    }

    private void check(Harness harness, String cli, String fixture, String expectedArgs)
            throws Exception {
        String transcript = Files.readString(Path.of("src/test/resources", fixture));
        String key =
                sandboxes
                        .ensure("{\"definitionId\":\"harness-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        put(key, "/workspace/transcript.ndjson", transcript);
        put(
                key,
                "/usr/local/bin/" + cli,
                "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > /workspace/args\n"
                        + "cat > /workspace/stdin\ncat /workspace/transcript.ndjson\n");
        sandboxes.exec(key, "chmod +x /usr/local/bin/" + cli);

        String prompt = "fix 'the' \"test\"; $(touch /tmp/pwned)";
        String runId = "r-" + UUID.randomUUID();
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-h\",\"sandbox\":{\"key\":\""
                        + key
                        + "\"},"
                        + "\"harness\":\""
                        + harness.wireName()
                        + "\",\"prompt\":"
                        + Runs.jsonString(prompt)
                        + "}");
        List<SseClient.Event> events = runs.transcript(runId, null);

        HarnessTranslator t = harness.translator(runId, "t-h", () -> 0L);
        List<JsonObject> expected = new ArrayList<>();
        expected.addAll(t.onStart());
        expected.add(
                new dev.agentbox.run.harness.ChunkFactory(runId, "t-h", () -> 0L)
                        .custom("run.accepted", jakarta.json.JsonValue.EMPTY_JSON_OBJECT));
        transcript.lines().forEach(l -> expected.addAll(t.onLine(l)));
        expected.addAll(t.onExit(0, ""));
        List<JsonObject> streamed = events.stream().map(e -> Api.parse(e.data())).toList();
        assertThat(streamed.stream().map(Chunks::fingerprint).toList())
                .containsExactlyElementsOf(expected.stream().map(Chunks::fingerprint).toList());
        // CH-01, CH-02: what a client receives is a valid AG-UI sequence.
        AgUiAssert.assertValidAgUiLog(streamed);

        assertThat(sandboxes.stdout(key, "cat /workspace/args")).isEqualTo(expectedArgs);
        assertThat(sandboxes.stdout(key, "cat /workspace/stdin")).isEqualTo(prompt);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(
                                                sandboxes.stdout(
                                                        key,
                                                        "ls -A /tmp/agentbox-runs 2>/dev/null || true"))
                                        .as("the prompt file goes with the journal")
                                        .doesNotContain(".prompt"));
        assertThat(sandboxes.exec(key, "test -e /tmp/pwned").getInt("exitCode"))
                .as("prompt never ran as shell")
                .isNotZero();
        assertThat(runs.get(runId).getString("status"))
                .isEqualTo(
                        expected.get(expected.size() - 1).getString("type").equals("RUN_FINISHED")
                                ? "completed"
                                : "failed");
        if (harness == Harness.CLAUDE_CODE) {
            assertThat(runs.get(runId).containsKey("usage"))
                    .as("result usage recorded on the run")
                    .isTrue();
        }
    }

    private void put(String key, String path, String content) {
        assertThat(
                        api.send(
                                        api.request(
                                                        "/api/v1/sandboxes/"
                                                                + key
                                                                + "/files?path="
                                                                + path,
                                                        Api.TENANT_A)
                                                .PUT(HttpRequest.BodyPublishers.ofString(content)))
                                .statusCode())
                .isEqualTo(204);
    }
}
