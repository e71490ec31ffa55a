package dev.agentbox.run.harness;

import static dev.agentbox.run.harness.Transcripts.summaries;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CodexTranslatorTest {

    private final AtomicLong clock = new AtomicLong();

    private CodexTranslator translator() {
        return new CodexTranslator(Transcripts.RUN, Transcripts.THREAD, clock::incrementAndGet);
    }

    private static List<String> lines(String fixture) {
        return new String(Transcripts.resource(fixture), StandardCharsets.UTF_8).lines().toList();
    }

    /** Codex 0.171.0, a text turn (recorded by CodexCliDockerTest). */
    @Test
    void aRecordedTextTurnIsOneTextMessageAndRunFinishedWithTheResult() {
        CodexTranslator t = translator();
        List<JsonObject> chunks =
                Transcripts.translateLines(t, lines("codex-success.jsonl"), 0, "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=01a23ad9-3456-7a60-92f5-2ceeca1a733a",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Hello from the scripted model.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=Hello from the scripted model.");
        assertThat(t.usage().orElseThrow().toString())
                .isEqualTo(
                        "{\"cache_write_input_tokens\":0,\"cached_input_tokens\":0,\"input_tokens\":12,"
                                + "\"output_tokens\":7,\"reasoning_output_tokens\":0}");
    }

    /** Codex 0.171.0 running a shell command with approvals and its own sandbox off (recorded). */
    @Test
    void aRecordedShellCommandIsAToolCallWithItsResultThenText() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.CODEX,
                        Transcripts.journal("codex-tool.jsonl", 0),
                        29,
                        "",
                        clock::incrementAndGet);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=01a23ad9-3b26-7420-8291-b17328120db8",
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
    }

    /** Codex 0.171.0 in its read-only sandbox inside a container: the command fails (recorded). */
    @Test
    void aRecordedReadOnlyCommandFailsAsACommandResult() {
        List<String> s =
                summaries(
                        Transcripts.translateLines(
                                translator(), lines("codex-read-only.jsonl"), 0, ""));
        assertThat(s.get(5))
                .isEqualTo(
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool"
                                + " content={\"exit_code\":1,\"output\":\"bwrap: No permissions to create a"
                                + " new namespace, likely because the kernel does not allow"
                                + " non-privileged user namespaces. On e.g. debian this can be enabled"
                                + " with 'sysctl kernel.unprivileged_userns_clone=1'.\\n\"}");
        assertThat(s.get(s.size() - 1)).isEqualTo("RUN_FINISHED result=The command did not run.");
    }

    /** Codex 0.171.0 meeting HTTP 500 with retries off (recorded): its error, then turn.failed. */
    @Test
    void aRecordedModelApiErrorIsANoticeThenRunErrorFromTurnFailed() {
        String message =
                "We’re currently experiencing high demand, which may cause temporary errors.";
        List<JsonObject> chunks =
                Transcripts.translateLines(translator(), lines("codex-failed.jsonl"), 1, "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=01a23ad9-56d3-7961-a1ed-23ae90e9078d",
                        "CUSTOM name=codex.error value=" + message,
                        "RUN_ERROR message=" + message + " code=agent-error");
    }

    /**
     * Codex 0.171.0 after a stream cut short (recorded): it prints an {@code error} line, retries
     * and recovers; the run must not end at that line.
     */
    @Test
    void aRecordedReconnectIsANoticeAndTheRunFinishes() {
        List<JsonObject> chunks =
                Transcripts.translateLines(translator(), lines("codex-retry.jsonl"), 0, "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=01a23ad9-40f1-7013-9259-6abd69b1ba6d",
                        "CUSTOM name=codex.error value=Reconnecting... 1/1 (stream disconnected before"
                                + " completion: stream closed before response.completed)",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Recovered after the cut.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=Recovered after the cut.");
    }

    @Test
    void aFailedExitAfterAnErrorAndNoTurnFailedNamesThatError() {
        assertThat(
                        summaries(
                                Transcripts.translateLines(
                                        translator(),
                                        List.of(
                                                "{\"type\":\"error\",\"message\":\"config is broken\"}"),
                                        1,
                                        "WARNING: noise\n")))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.error value=config is broken",
                        "RUN_ERROR message=config is broken code=agent-error");
        assertThat(
                        summaries(
                                Transcripts.translateLines(
                                        translator(),
                                        List.of("{\"type\":\"turn.started\"}"),
                                        2,
                                        "boom")))
                .containsExactly(
                        "RUN_STARTED",
                        "RUN_ERROR message=Agent process exited with code 2: boom code=agent-exit");
    }

    @Test
    void everyRecordedLineIsOfAKindTheTranslatorMaps() {
        for (String fixture :
                List.of(
                        "codex-success.jsonl",
                        "codex-tool.jsonl",
                        "codex-read-only.jsonl",
                        "codex-failed.jsonl",
                        "codex-retry.jsonl",
                        "codex-synthetic.jsonl",
                        "codex-stream-failed.jsonl")) {
            assertThat(
                            lines(fixture).stream()
                                    .map(
                                            l ->
                                                    CodexTranslator.eventKind(
                                                            TranslatorBase.parseObject(l)
                                                                    .orElseThrow())))
                    .as(fixture)
                    .isSubsetOf(CodexTranslator.HANDLED);
        }
    }

    /**
     * Hand-written: the item types the scripted runs do not produce — reasoning, a todo list, a
     * file change, an MCP tool call, a warning item.
     */
    @Test
    void aSyntheticExecBecomesToolCallsCustomsTextAndRunFinished() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.CODEX,
                        Transcripts.journal("codex-synthetic.jsonl", 0),
                        13,
                        "",
                        clock::incrementAndGet);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=0199a213-81c0-7800-8aa1-bbab2a035a53",
                        "REASONING_START messageId=r-0",
                        "REASONING_MESSAGE_START messageId=r-1 role=reasoning",
                        "REASONING_MESSAGE_CONTENT messageId=r-1 delta=**Locating the failing test**",
                        "REASONING_MESSAGE_END messageId=r-1",
                        "REASONING_END messageId=r-0",
                        "CUSTOM name=codex.todo-list value=[{\"completed\":false,\"text\":\"Run the tests\"},{\"completed\":false,\"text\":\"Fix sum\"}]",
                        "TOOL_CALL_START toolCallId=r-2 toolCallName=command_execution",
                        "TOOL_CALL_ARGS toolCallId=r-2 delta={\"command\":\"bash -lc 'npm test'\"}",
                        "TOOL_CALL_END toolCallId=r-2",
                        "TOOL_CALL_RESULT messageId=r-3 toolCallId=r-2 role=tool content={\"exit_code\":1,\"output\":\"FAIL src/sum.test.js\\n  expected 3, received 4\\n\"}",
                        "TOOL_CALL_START toolCallId=r-4 toolCallName=file_change",
                        "TOOL_CALL_ARGS toolCallId=r-4 delta={\"changes\":[{\"kind\":\"update\",\"path\":\"src/sum.js\"}]}",
                        "TOOL_CALL_END toolCallId=r-4",
                        "TOOL_CALL_RESULT messageId=r-5 toolCallId=r-4 role=tool content={\"status\":\"completed\"}",
                        "CUSTOM name=codex.todo-list value=[{\"completed\":true,\"text\":\"Run the tests\"},{\"completed\":true,\"text\":\"Fix sum\"}]",
                        "TOOL_CALL_START toolCallId=r-6 toolCallName=mcp_tool_call",
                        "TOOL_CALL_ARGS toolCallId=r-6 delta={\"arguments\":{\"q\":\"sum\"},\"server\":\"docs\",\"tool\":\"search\"}",
                        "TOOL_CALL_END toolCallId=r-6",
                        "TOOL_CALL_RESULT messageId=r-7 toolCallId=r-6 role=tool content={\"error\":null,\"result\":{\"content\":[{\"text\":\"no results\",\"type\":\"text\"}],\"structured_content\":null},\"status\":\"completed\"}",
                        "CUSTOM name=codex.warning value=Warning: sandbox is read-only for /etc",
                        "TEXT_MESSAGE_START messageId=r-8 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-8 delta=Fixed the off-by-one in `sum`; tests pass.",
                        "TEXT_MESSAGE_END messageId=r-8",
                        "RUN_FINISHED result=Fixed the off-by-one in `sum`; tests pass.");
        assertThat(chunks).allSatisfy(c -> assertThat(Chunks.problems(c)).isEmpty());
    }

    @Test
    void turnUsageIsAvailableAndSummedOverTurns() {
        CodexTranslator t = translator();
        assertThat(t.usage()).isEmpty();
        Transcripts.translateLines(
                t,
                List.of(
                        "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":10,\"cached_input_tokens\":2,\"output_tokens\":5}}",
                        "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1,\"cached_input_tokens\":0,\"output_tokens\":1}}"),
                0,
                "");
        assertThat(t.usage())
                .hasValueSatisfying(
                        u ->
                                assertThat(u.toString())
                                        .isEqualTo(
                                                "{\"cached_input_tokens\":2,\"input_tokens\":11,\"output_tokens\":6}"));
    }

    /** Hand-written: a failed command, then a stream that failed for good. */
    @Test
    void errorEventIsANoticeTurnFailedIsRunErrorAndTheExitAddsNothing() {
        CodexTranslator t = translator();
        List<JsonObject> chunks =
                Transcripts.translateLines(t, lines("codex-stream-failed.jsonl"), 1, "fatal");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=codex.session-id value=err-4567",
                        "TOOL_CALL_START toolCallId=r-0 toolCallName=command_execution",
                        "TOOL_CALL_ARGS toolCallId=r-0 delta={\"command\":\"invalid-command\"}",
                        "TOOL_CALL_END toolCallId=r-0",
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool content={\"exit_code\":127,\"output\":\"command not found: invalid-command\"}",
                        "CUSTOM name=codex.error value=stream disconnected before completion",
                        "RUN_ERROR message=stream disconnected before completion code=agent-error");
        assertThat(t.usage()).isPresent();
    }

    @Test
    void turnFailedAloneIsRunError() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"turn.failed\",\"error\":{\"message\":\"quota exceeded\"}}"),
                        1,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED", "RUN_ERROR message=quota exceeded code=agent-error");
    }

    @Test
    void webSearchReportedOnlyOnCompletionIsAWholeToolCall() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"web_search\",\"query\":\"rust\"}}"),
                        0,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "TOOL_CALL_START toolCallId=r-0 toolCallName=web_search",
                        "TOOL_CALL_ARGS toolCallId=r-0 delta={\"query\":\"rust\"}",
                        "TOOL_CALL_END toolCallId=r-0",
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool content={}",
                        "RUN_FINISHED");
    }

    /** CH-06: reasoning items are reasoning spans; the last agent message is the result. */
    @Test
    void reasoningIsAReasoningSpanAndTheLastAgentMessageIsTheResult() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"reasoning\",\"text\":\"think\"}}",
                                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"reasoning\",\"text\":\"\"}}",
                                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":\"agent_message\",\"text\":\"first\"}}",
                                "{\"type\":\"item.started\",\"item\":{\"id\":\"item_3\",\"type\":\"command_execution\",\"command\":\"ls\"}}",
                                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_4\",\"type\":\"agent_message\",\"text\":\"last\"}}",
                                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_3\",\"type\":\"command_execution\",\"command\":\"ls\",\"exit_code\":0,\"aggregated_output\":\"a\\n\"}}",
                                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_5\",\"type\":\"agent_message\",\"text\":\"\"}}"),
                        0,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "REASONING_START messageId=r-0",
                        "REASONING_MESSAGE_START messageId=r-1 role=reasoning",
                        "REASONING_MESSAGE_CONTENT messageId=r-1 delta=think",
                        "REASONING_MESSAGE_END messageId=r-1",
                        "REASONING_END messageId=r-0",
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=first",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "TOOL_CALL_START toolCallId=r-3 toolCallName=command_execution",
                        "TOOL_CALL_ARGS toolCallId=r-3 delta={\"command\":\"ls\"}",
                        "TOOL_CALL_END toolCallId=r-3",
                        "TEXT_MESSAGE_START messageId=r-4 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-4 delta=last",
                        "TEXT_MESSAGE_END messageId=r-4",
                        "TOOL_CALL_RESULT messageId=r-5 toolCallId=r-3 role=tool content={\"exit_code\":0,\"output\":\"a\\n\"}",
                        "RUN_FINISHED result=last");
    }

    @Test
    void aRunWithoutAgentMessagesFinishesWithoutAResult() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(), List.of("{\"type\":\"turn.started\"}"), 0, "");
        assertThat(chunks.get(chunks.size() - 1).containsKey("result")).isFalse();
    }
}
