package dev.agentbox.run.harness;

import static dev.agentbox.run.harness.Transcripts.summaries;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.NeedsDocker;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.ScriptedModelServer.RecordedRequest;
import dev.agentbox.testing.model.Turn;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Claude Code CLI of {@code agentbox/sandbox:agents}, run with the claude-code harness's
 * exact command lines ({@link AgentCommands}) against a {@link ScriptedModelServer} on loopback,
 * its output fed through {@link ClaudeCodeTranslator}: a text turn, a Bash tool that changes a file
 * in the workspace, the same tool refused under {@code permissionMode: default}, a model API error,
 * a retried overload, and a second turn resuming the session. Every line the CLI prints must be one
 * the translator maps (CH-08, CH-09).
 */
@NeedsDocker
class ClaudeCodeCliDockerTest {

    private static final String KEY = "sk-ant-test-" + Long.toHexString(System.nanoTime());

    @TempDir Path dir;

    private ScriptedModelServer model;
    private Path workspace;
    private AgentCliContainer cli;

    @BeforeAll
    static void image() {
        AgentCliContainer.requireImage();
        assertThat(AgentCliContainer.label("dev.agentbox.claude-code.version"))
                .isEqualTo("2.1.332");
    }

    @BeforeEach
    void start() throws Exception {
        model = ScriptedModelServer.start(KEY);
        workspace = Files.createDirectories(dir.resolve("workspace"));
        cli =
                new AgentCliContainer(workspace, Files.createDirectories(dir.resolve("home")))
                        .claudeCode(model.anthropicBaseUrl(), KEY);
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private List<JsonObject> translated(String fixture, AgentCliContainer.Output out) {
        CliTranscripts.record(fixture, out);
        List<JsonObject> chunks = CliTranscripts.translate(Harness.CLAUDE_CODE, out);
        CliTranscripts.assertEveryLineUnderstood(
                out, ClaudeCodeTranslator::eventKind, ClaudeCodeTranslator.HANDLED, chunks);
        return chunks;
    }

    private static String sessionId(List<JsonObject> chunks) {
        return chunks.get(1).getString("value");
    }

    @Test
    void aTextTurnIsATextMessageAndRunFinishedWithTheResult() {
        model.enqueue(Turn.text("Hello from the scripted model."));

        AgentCliContainer.Output out = cli.run(AgentCommands.claudeCode("Say hello."));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        List<JsonObject> chunks = translated("claude-code-success.ndjson", out);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=" + sessionId(chunks),
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Hello from the scripted model.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=Hello from the scripted model.");
        assertThat(AgentCommands.isSessionId(sessionId(chunks))).isTrue();
        RecordedRequest request = model.modelRequests().get(0);
        assertThat(request.path()).isEqualTo("/v1/messages");
        assertThat(request.header("x-api-key")).contains(KEY);
        assertThat(request.body()).contains("Say hello.");
        JsonObject body = request.json().orElseThrow();
        assertThat(body.getJsonArray("tools").stream().map(t -> t.asJsonObject().getString("name")))
                .contains("Bash", "Edit", "Read", "Write");
        assertThat(model.requests()).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
        assertThat(model.remainingTurns()).isZero();
    }

    @Test
    void aBashToolChangesTheWorkspaceAndBecomesAToolCallWithItsResult() throws Exception {
        Files.writeString(workspace.resolve("notes.txt"), "before\n");
        model.enqueue(
                Turn.claudeBash(
                        "printf 'after\\n' > /workspace/notes.txt && cat /workspace/notes.txt"),
                Turn.text("notes.txt now says after."));

        AgentCliContainer.Output out =
                cli.run(AgentCommands.claudeCode("Change notes.txt to say after."));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        assertThat(Files.readString(workspace.resolve("notes.txt"))).isEqualTo("after\n");
        List<JsonObject> chunks = translated("claude-code-tool.ndjson", out);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=" + sessionId(chunks),
                        "TOOL_CALL_START toolCallId=r-0 toolCallName=Bash",
                        "TOOL_CALL_ARGS toolCallId=r-0 delta={\"command\":\"printf 'after\\\\n' >"
                                + " /workspace/notes.txt && cat /workspace/notes.txt\","
                                + "\"description\":\"Run a command\"}",
                        "TOOL_CALL_END toolCallId=r-0",
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool content=after",
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=notes.txt now says after.",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "RUN_FINISHED result=notes.txt now says after.");
        // the tool's output went back to the model
        assertThat(model.modelRequests().get(1).body()).contains("\"tool_result\"", "after");
    }

    @Test
    void inPermissionModeDefaultTheWriteIsRefusedReportedAndTheRunStillFinishes() throws Exception {
        Files.writeString(workspace.resolve("notes.txt"), "before\n");
        model.enqueue(
                Turn.claudeBash("printf 'after\\n' > /workspace/notes.txt"),
                Turn.text("I was not allowed to change it."));

        AgentCliContainer.Output out =
                cli.run(
                        AgentCommands.claudeCode(
                                "Change notes.txt to say after.", PermissionMode.DEFAULT));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        assertThat(Files.readString(workspace.resolve("notes.txt"))).isEqualTo("before\n");
        List<JsonObject> chunks = translated("claude-code-permission-denied.ndjson", out);
        List<String> s = summaries(chunks);
        assertThat(s.get(2)).isEqualTo("TOOL_CALL_START toolCallId=r-0 toolCallName=Bash");
        assertThat(s.get(5))
                .startsWith("CUSTOM name=claude-code.permission-denied value={\"message\":\"")
                .endsWith("\",\"tool\":\"Bash\",\"toolCallId\":\"r-0\"}");
        assertThat(s.get(6))
                .startsWith("TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool content=")
                .contains("needs approval");
        assertThat(s.subList(7, s.size()))
                .containsExactly(
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=I was not allowed to change it.",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "RUN_FINISHED result=I was not allowed to change it.");
        assertThat(out.lines())
                .anySatisfy(l -> assertThat(l).contains("\"permission_denials\":[{"));
    }

    @Test
    void aModelApiErrorEndsTheRunWithRunErrorAgentError() {
        model.enqueue(Turn.serverError("The scripted model is down."));

        AgentCliContainer.Output out = cli.run(AgentCommands.claudeCode("Say hello."));

        assertThat(out.exitCode()).isEqualTo(1);
        List<JsonObject> chunks = translated("claude-code-error.ndjson", out);
        JsonObject last = chunks.get(chunks.size() - 1);
        assertThat(last.getString("type")).isEqualTo("RUN_ERROR");
        assertThat(last.getString("code")).isEqualTo(HarnessTranslator.AGENT_ERROR);
        assertThat(last.getString("message"))
                .startsWith("API Error: 500")
                .contains("The scripted model is down.");
        assertThat(model.modelRequests()).hasSize(1);
    }

    @Test
    void anOverloadedModelIsRetriedAndTheRetryIsReported() {
        cli.env("CLAUDE_CODE_MAX_RETRIES", "1");
        model.enqueue(Turn.overloaded(), Turn.text("Second time lucky."));

        AgentCliContainer.Output out = cli.run(AgentCommands.claudeCode("Say hello."));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        List<JsonObject> chunks = translated("claude-code-retry.ndjson", out);
        List<String> s = summaries(chunks);
        assertThat(s.get(2))
                .startsWith("CUSTOM name=claude-code.api-retry value={\"attempt\":1,")
                .contains("\"maxRetries\":1", "\"status\":529", "\"error\":\"overloaded\"");
        assertThat(s.get(s.size() - 1)).isEqualTo("RUN_FINISHED result=Second time lucky.");
        assertThat(model.modelRequests())
                .extracting(RecordedRequest::status)
                .containsExactly(529, 200);
    }

    @Test
    void aSecondTurnResumesTheSessionWithItsHistory() {
        model.enqueue(Turn.text("The first answer."), Turn.text("The second answer."));
        List<JsonObject> first =
                translated(
                        "claude-code-first-turn.ndjson",
                        cli.run(AgentCommands.claudeCode("First question?")));
        String session = sessionId(first);

        AgentCliContainer.Output out =
                cli.run(AgentCommands.claudeCodeResuming(session, "Second question?"));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        List<JsonObject> chunks = translated("claude-code-resumed.ndjson", out);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=" + session,
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=The second answer.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=The second answer.");
        String resumed = model.modelRequests().get(1).body();
        assertThat(resumed).contains("First question?", "The first answer.", "Second question?");
    }
}
