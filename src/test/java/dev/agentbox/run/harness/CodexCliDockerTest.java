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
 * The real Codex CLI of {@code agentbox/sandbox:agents}, run with the codex harness's exact command
 * lines ({@link AgentCommands}) against a {@link ScriptedModelServer} on loopback, its output fed
 * through {@link CodexTranslator}: a text turn, a shell command that changes a file in the
 * workspace, the same command under {@code permissionMode: default} (Codex's read-only sandbox,
 * which cannot start in a container), a model API error, a stream cut short and retried, and a
 * second turn resuming the session. Every line the CLI prints must be one the translator maps
 * (CH-08, CH-09).
 *
 * <p>Codex reads its endpoint from {@code ~/.codex/config.toml}: a provider at the scripted server
 * (retries as each test needs), with update checks, analytics and the plugin and app catalogues
 * off, so it connects to nothing else.
 */
@NeedsDocker
class CodexCliDockerTest {

    private static final String KEY = "sk-test-" + Long.toHexString(System.nanoTime());

    @TempDir Path dir;

    private ScriptedModelServer model;
    private Path workspace;
    private Path home;
    private AgentCliContainer cli;

    @BeforeAll
    static void image() {
        AgentCliContainer.requireImage();
        assertThat(AgentCliContainer.label("dev.agentbox.codex.version")).isEqualTo("0.171.0");
    }

    @BeforeEach
    void start() throws Exception {
        model = ScriptedModelServer.start(KEY);
        workspace = Files.createDirectories(dir.resolve("workspace"));
        home = Files.createDirectories(dir.resolve("home"));
        configure(0);
        cli = new AgentCliContainer(workspace, home).env("OPENAI_API_KEY", KEY);
    }

    @AfterEach
    void stop() {
        model.close();
    }

    /** Codex's configuration: the scripted server as its only provider, {@code retries} retries. */
    private void configure(int retries) throws Exception {
        Files.createDirectories(home.resolve(".codex"));
        Files.writeString(
                home.resolve(".codex/config.toml"),
                String.join("\n", ScriptedModelServer.codexConfig(model.openAiBaseUrl(), retries))
                        + "\n");
    }

    private List<JsonObject> translated(String fixture, AgentCliContainer.Output out) {
        CliTranscripts.record(fixture, out);
        List<JsonObject> chunks = CliTranscripts.translate(Harness.CODEX, out);
        CliTranscripts.assertEveryLineUnderstood(
                out, CodexTranslator::eventKind, CodexTranslator.HANDLED, chunks);
        return chunks;
    }

    private static String sessionId(List<JsonObject> chunks) {
        return chunks.get(1).getString("value");
    }

    @Test
    void aTextTurnIsATextMessageAndRunFinishedWithTheResult() {
        model.enqueue(Turn.text("Hello from the scripted model."));

        AgentCliContainer.Output out = cli.run(AgentCommands.codex("Say hello."));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        List<JsonObject> chunks = translated("codex-success.jsonl", out);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=" + sessionId(chunks),
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Hello from the scripted model.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=Hello from the scripted model.");
        RecordedRequest request = model.modelRequests().get(0);
        assertThat(request.path()).isEqualTo("/v1/responses");
        assertThat(request.header("authorization")).contains("Bearer " + KEY);
        assertThat(request.body()).contains("Say hello.");
        assertThat(
                        request.json().orElseThrow().getJsonArray("tools").stream()
                                .map(t -> t.asJsonObject().getString("name", "")))
                .contains("exec_command");
        assertThat(model.requests()).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
        assertThat(model.remainingTurns()).isZero();
    }

    @Test
    void aShellCommandChangesTheWorkspaceAndBecomesAToolCallWithItsResult() throws Exception {
        Files.writeString(workspace.resolve("notes.txt"), "before\n");
        model.enqueue(
                Turn.codexExec("echo after > notes.txt && cat notes.txt"),
                Turn.text("notes.txt now says after."));

        AgentCliContainer.Output out =
                cli.run(AgentCommands.codex("Change notes.txt to say after."));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        assertThat(Files.readString(workspace.resolve("notes.txt"))).isEqualTo("after\n");
        List<JsonObject> chunks = translated("codex-tool.jsonl", out);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=" + sessionId(chunks),
                        "TOOL_CALL_START toolCallId=r-0 toolCallName=command_execution",
                        "TOOL_CALL_ARGS toolCallId=r-0 delta={\"command\":\"/bin/bash -lc"
                                + " 'echo after > notes.txt && cat notes.txt'\"}",
                        "TOOL_CALL_END toolCallId=r-0",
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool"
                                + " content={\"exit_code\":0,\"output\":\"after\\n\"}",
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=notes.txt now says after.",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "RUN_FINISHED result=notes.txt now says after.");
        assertThat(model.modelRequests().get(1).body())
                .contains("\"function_call_output\"", "after");
    }

    @Test
    void inPermissionModeDefaultCodexsOwnSandboxCannotRunTheCommand() throws Exception {
        Files.writeString(workspace.resolve("notes.txt"), "before\n");
        model.enqueue(
                Turn.codexExec("printf 'after\\n' > notes.txt"),
                Turn.text("The command did not run."));

        AgentCliContainer.Output out =
                cli.run(
                        AgentCommands.codex(
                                "Change notes.txt to say after.", PermissionMode.DEFAULT));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        assertThat(Files.readString(workspace.resolve("notes.txt"))).isEqualTo("before\n");
        List<JsonObject> chunks = translated("codex-read-only.jsonl", out);
        List<String> s = summaries(chunks);
        assertThat(s.get(2))
                .isEqualTo("TOOL_CALL_START toolCallId=r-0 toolCallName=command_execution");
        assertThat(s.get(5))
                .startsWith(
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool"
                                + " content={\"exit_code\":1,\"output\":\"bwrap: ");
        assertThat(s.get(s.size() - 1)).isEqualTo("RUN_FINISHED result=The command did not run.");
        assertThat(model.modelRequests().get(0).header("x-codex-turn-metadata"))
                .hasValueSatisfying(m -> assertThat(m).contains("\"sandbox_mode\":\"read-only\""));
    }

    @Test
    void aModelApiErrorEndsTheRunWithRunErrorAgentError() {
        model.enqueue(Turn.serverError("The scripted model is down."));

        AgentCliContainer.Output out = cli.run(AgentCommands.codex("Say hello."));

        assertThat(out.exitCode()).isEqualTo(1);
        List<JsonObject> chunks = translated("codex-failed.jsonl", out);
        List<String> s = summaries(chunks);
        JsonObject last = chunks.get(chunks.size() - 1);
        assertThat(last.getString("type")).isEqualTo("RUN_ERROR");
        assertThat(last.getString("code")).isEqualTo(HarnessTranslator.AGENT_ERROR);
        // Codex puts its own words in place of the API's message for a 500
        assertThat(s.get(s.size() - 2))
                .isEqualTo("CUSTOM name=codex.error value=" + last.getString("message"));
        assertThat(model.modelRequests()).hasSize(1);
    }

    @Test
    void aStreamCutShortIsRetriedReportedAndTheRunStillFinishes() throws Exception {
        configure(1);
        model.enqueue(Turn.disconnect(), Turn.text("Recovered after the cut."));

        AgentCliContainer.Output out = cli.run(AgentCommands.codex("Say hello."));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        List<JsonObject> chunks = translated("codex-retry.jsonl", out);
        List<String> s = summaries(chunks);
        assertThat(s.get(2))
                .startsWith("CUSTOM name=codex.error value=Reconnecting... 1/1 (")
                .contains("stream closed before response.completed");
        assertThat(s.get(s.size() - 1)).isEqualTo("RUN_FINISHED result=Recovered after the cut.");
        assertThat(model.modelRequests()).hasSize(2);
    }

    @Test
    void aSecondTurnResumesTheSessionWithItsHistory() {
        model.enqueue(Turn.text("The first answer."), Turn.text("The second answer."));
        List<JsonObject> first =
                translated(
                        "codex-first-turn.jsonl", cli.run(AgentCommands.codex("First question?")));
        String session = sessionId(first);

        AgentCliContainer.Output out =
                cli.run(
                        AgentCommands.codexResuming(
                                session, "Second question?", PermissionMode.BYPASS_PERMISSIONS));

        assertThat(out.exitCode()).as(out.stderr()).isZero();
        List<JsonObject> chunks = translated("codex-resumed.jsonl", out);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=" + session,
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=The second answer.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=The second answer.");
        String resumed = model.modelRequests().get(1).body();
        assertThat(resumed).contains("First question?", "The first answer.", "Second question?");
    }
}
