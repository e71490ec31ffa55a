package dev.agentbox.run.harness;

import static dev.agentbox.run.harness.Transcripts.summaries;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClaudeCodeTranslatorTest {

    private final AtomicLong clock = new AtomicLong();

    private ClaudeCodeTranslator translator() {
        return new ClaudeCodeTranslator(
                Transcripts.RUN, Transcripts.THREAD, clock::incrementAndGet);
    }

    @Test
    void successfulSessionBecomesTextToolCallsResultsAndRunFinished() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.CLAUDE_CODE,
                        Transcripts.journal("claude-code-success.ndjson", 0),
                        97,
                        "",
                        clock::incrementAndGet);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=8f0c2c4e-3b1d-4d9a-9a55-2f3e1c0d7b11",
                        "REASONING_START messageId=r-0",
                        "REASONING_MESSAGE_START messageId=r-1 role=reasoning",
                        "REASONING_MESSAGE_CONTENT messageId=r-1 delta=The user wants the failing test fixed. Run the suite first.",
                        "REASONING_MESSAGE_END messageId=r-1",
                        "REASONING_END messageId=r-0",
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=I'll run the tests to see what fails.",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "TOOL_CALL_START toolCallId=r-3 toolCallName=Bash",
                        "TOOL_CALL_ARGS toolCallId=r-3 delta={\"command\":\"npm test\",\"description\":\"Run the test suite\"}",
                        "TOOL_CALL_END toolCallId=r-3",
                        "TOOL_CALL_RESULT messageId=r-4 toolCallId=r-3 role=tool content=FAIL src/sum.test.js\n  sum adds two numbers\n    expected 3, received 4",
                        "TOOL_CALL_START toolCallId=r-5 toolCallName=Edit",
                        "TOOL_CALL_ARGS toolCallId=r-5 delta={\"file_path\":\"/workspace/src/sum.js\",\"new_string\":\"return a + b;\",\"old_string\":\"return a + b + 1;\"}",
                        "TOOL_CALL_END toolCallId=r-5",
                        "TOOL_CALL_RESULT messageId=r-6 toolCallId=r-5 role=tool content=The file /workspace/src/sum.js has been updated.\n1 line changed.",
                        "TEXT_MESSAGE_START messageId=r-7 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-7 delta=Fixed: `sum` added one too many. \"Tests\" pass now — ✓",
                        "TEXT_MESSAGE_END messageId=r-7",
                        "RUN_FINISHED result=Fixed: `sum` added one too many. \"Tests\" pass now — ✓");
        assertThat(chunks).allSatisfy(c -> assertThat(Chunks.problems(c)).isEmpty());
    }

    @Test
    void resultUsageIsAvailableToTheCaller() {
        ClaudeCodeTranslator t = translator();
        assertThat(t.usage()).isEmpty();
        Transcripts.translateLines(t, lines("claude-code-success.ndjson"), 0, "");
        assertThat(t.usage())
                .hasValueSatisfying(
                        u -> {
                            assertThat(u.getInt("input_tokens")).isEqualTo(16);
                            assertThat(u.getInt("output_tokens")).isEqualTo(178);
                        });
    }

    @Test
    void errorResultIsRunErrorAndTheExitAddsNothing() {
        ClaudeCodeTranslator t = translator();
        List<JsonObject> chunks =
                Transcripts.translateLines(t, lines("claude-code-error.ndjson"), 1, "max turns");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=1d2e3f40-aaaa-4bbb-8ccc-dddddddddddd",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Looking into it.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "TOOL_CALL_START toolCallId=r-1 toolCallName=Read",
                        "TOOL_CALL_ARGS toolCallId=r-1 delta={\"file_path\":\"/workspace/README.md\"}",
                        "TOOL_CALL_END toolCallId=r-1",
                        "CUSTOM name=agent.text value=warning: an unexpected plain-text line on stdout",
                        "RUN_ERROR message=Claude Code run ended with error_max_turns code=agent-error");
        assertThat(t.usage()).isPresent();
    }

    @Test
    void isErrorWithResultTextUsesThatText() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"API Error: 401\"}"),
                        1,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED", "RUN_ERROR message=API Error: 401 code=agent-error");
    }

    @Test
    void sessionThatExitsWithoutAResultLineEndsByItsExitCode() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of("{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}"),
                        1,
                        "Error: not logged in\n");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=s",
                        "RUN_ERROR message=Agent process exited with code 1: Error: not logged in code=agent-exit");
    }

    @Test
    void toolResultForAnUnknownToolUseIsKeptAsCustom() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_x\",\"content\":\"?\"}]}}"),
                        0,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.tool-result value={\"content\":\"?\",\"tool_use_id\":\"toolu_x\",\"type\":\"tool_result\"}",
                        "RUN_FINISHED");
    }

    @Test
    void unknownEventsAndOtherSystemMessagesAreIgnored() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"stream_event\",\"event\":{}}",
                                "{\"type\":\"system\",\"subtype\":\"compact_boundary\"}",
                                "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"\"},{\"type\":\"redacted_thinking\"}]}}"),
                        0,
                        "");
        assertThat(summaries(chunks)).containsExactly("RUN_STARTED", "RUN_FINISHED");
    }

    private static List<String> lines(String fixture) {
        return new String(Transcripts.resource(fixture), java.nio.charset.StandardCharsets.UTF_8)
                .lines()
                .toList();
    }

    /** CH-06: each non-empty thinking block is its own reasoning span, with fresh ids. */
    @Test
    void thinkingBlocksAreReasoningSpansWithFreshIds() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"assistant\",\"message\":{\"content\":["
                                        + "{\"type\":\"thinking\",\"thinking\":\"a\"},"
                                        + "{\"type\":\"thinking\",\"thinking\":\"\"},"
                                        + "{\"type\":\"thinking\",\"thinking\":\"b\"}]}}"),
                        0,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "REASONING_START messageId=r-0",
                        "REASONING_MESSAGE_START messageId=r-1 role=reasoning",
                        "REASONING_MESSAGE_CONTENT messageId=r-1 delta=a",
                        "REASONING_MESSAGE_END messageId=r-1",
                        "REASONING_END messageId=r-0",
                        "REASONING_START messageId=r-2",
                        "REASONING_MESSAGE_START messageId=r-3 role=reasoning",
                        "REASONING_MESSAGE_CONTENT messageId=r-3 delta=b",
                        "REASONING_MESSAGE_END messageId=r-3",
                        "REASONING_END messageId=r-2",
                        "RUN_FINISHED");
    }

    /**
     * A tool_use id Claude repeats gets a fresh tool call each time; its result goes to the last.
     */
    @Test
    void aRepeatedToolUseIdStillMakesAValidLog() {
        String use =
                "{\"type\":\"assistant\",\"message\":{\"content\":["
                        + "{\"type\":\"tool_use\",\"id\":\"tu\",\"name\":\"Bash\",\"input\":{}}]}}";
        String result =
                "{\"type\":\"user\",\"message\":{\"content\":["
                        + "{\"type\":\"tool_result\",\"tool_use_id\":\"tu\",\"content\":\"ok\"}]}}";
        List<String> summaries =
                summaries(
                        Transcripts.translateLines(
                                translator(), List.of(use, use, result, result), 0, ""));
        assertThat(summaries)
                .contains(
                        "TOOL_CALL_START toolCallId=r-0 toolCallName=Bash",
                        "TOOL_CALL_START toolCallId=r-1 toolCallName=Bash",
                        "TOOL_CALL_RESULT messageId=r-2 toolCallId=r-1 role=tool content=ok");
    }

    @Test
    void theResultLinesTerminalChunkIsRememberedAndTheExitAddsNothing() {
        ClaudeCodeTranslator t = translator();
        t.onStart();
        assertThat(t.terminal()).isEmpty();
        java.util.List<jakarta.json.JsonObject> chunks =
                t.onLine(
                        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"API Error: 401\"}");
        assertThat(t.terminal()).contains(chunks.get(chunks.size() - 1));
        assertThat(t.terminal().orElseThrow().getString("type")).isEqualTo("RUN_ERROR");
        // the sentinel may come in a later batch than the result line: the exit adds nothing
        assertThat(t.onExit(0, "")).isEmpty();
        assertThat(t.terminal().orElseThrow().getString("type")).isEqualTo("RUN_ERROR");
    }
}
