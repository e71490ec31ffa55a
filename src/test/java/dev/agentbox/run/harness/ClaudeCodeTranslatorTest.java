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

    /** Claude Code 2.1.332, a text turn (recorded by ClaudeCodeCliDockerTest). */
    @Test
    void aRecordedTextTurnIsOneTextMessageAndRunFinishedWithTheResult() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.CLAUDE_CODE,
                        Transcripts.journal("claude-code-success.ndjson", 0),
                        61,
                        "",
                        clock::incrementAndGet);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=af16ffe5-4dac-4f28-8fef-146a244dcfd5",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Hello from the scripted model.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=Hello from the scripted model.");
    }

    /** Claude Code 2.1.332 running Bash in bypassPermissions mode (recorded). */
    @Test
    void aRecordedBashTurnIsAToolCallWithItsResultThenText() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.CLAUDE_CODE,
                        Transcripts.journal("claude-code-tool.ndjson", 0),
                        113,
                        "",
                        clock::incrementAndGet);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=ca986380-95eb-4c4d-a136-df49cde633d5",
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
    }

    /**
     * Claude Code 2.1.332 in permission mode default refusing a Bash write (recorded): the refusal
     * is its own CUSTOM chunk naming the tool call, the refused call still gets its result (the
     * refusal text), and the run finishes.
     */
    @Test
    void aRecordedPermissionDenialIsReportedAndTheRunStillFinishes() {
        String refusal =
                "Output redirection to '/workspace/notes.txt' needs approval. The path is inside"
                        + " the working directories for this session ('/workspace'), and Claude"
                        + " Code asks before a shell command creates, changes or removes files"
                        + " there.";
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(), lines("claude-code-permission-denied.ndjson"), 0, "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=ad4d32f6-dc3f-4bb9-b6e6-0095dd3712df",
                        "TOOL_CALL_START toolCallId=r-0 toolCallName=Bash",
                        "TOOL_CALL_ARGS toolCallId=r-0 delta={\"command\":\"printf 'after\\\\n' >"
                                + " /workspace/notes.txt\",\"description\":\"Run a command\"}",
                        "TOOL_CALL_END toolCallId=r-0",
                        "CUSTOM name=claude-code.permission-denied value={\"message\":\""
                                + refusal
                                + "\",\"tool\":\"Bash\",\"toolCallId\":\"r-0\"}",
                        "TOOL_CALL_RESULT messageId=r-1 toolCallId=r-0 role=tool content="
                                + refusal,
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=I was not allowed to change it.",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "RUN_FINISHED result=I was not allowed to change it.");
    }

    /**
     * Claude Code 2.1.332 meeting HTTP 500 with retries off (recorded): its own API-error message
     * is a CUSTOM chunk, not assistant text, and the error result ends the run.
     */
    @Test
    void aRecordedModelApiErrorIsACustomNoticeThenRunError() {
        ClaudeCodeTranslator t = translator();
        String message =
                "API Error: 500 The scripted model is down. This is a server-side issue, usually"
                        + " temporary — try again in a moment. If it persists, check your inference"
                        + " gateway (127.0.0.1:38317).";
        List<JsonObject> chunks =
                Transcripts.translateLines(t, lines("claude-code-error.ndjson"), 1, "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=73ea4297-00a2-412a-982d-87016acd045b",
                        "CUSTOM name=claude-code.api-error value={\"error\":\"server_error\",\"message\":\""
                                + message
                                + "\",\"status\":500}",
                        "RUN_ERROR message=" + message + " code=agent-error");
        assertThat(t.usage()).isPresent();
    }

    /** Claude Code 2.1.332 retrying after HTTP 529 (recorded). */
    @Test
    void aRecordedRetryIsReportedAndTheRunFinishes() {
        List<JsonObject> chunks =
                Transcripts.translateLines(translator(), lines("claude-code-retry.ndjson"), 0, "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.session-id value=c80abdc7-c978-4519-b373-d93dbdfb375b",
                        "CUSTOM name=claude-code.api-retry value={\"attempt\":1,\"error\":\"overloaded\","
                                + "\"maxRetries\":1,\"retryDelayMs\":520,\"status\":529}",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Second time lucky.",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED result=Second time lucky.");
    }

    @Test
    void everyRecordedLineIsOfAKindTheTranslatorMaps() {
        for (String fixture :
                List.of(
                        "claude-code-success.ndjson",
                        "claude-code-tool.ndjson",
                        "claude-code-permission-denied.ndjson",
                        "claude-code-error.ndjson",
                        "claude-code-retry.ndjson")) {
            assertThat(
                            lines(fixture).stream()
                                    .map(
                                            l ->
                                                    ClaudeCodeTranslator.eventKind(
                                                            TranslatorBase.parseObject(l)
                                                                    .orElseThrow())))
                    .as(fixture)
                    .isSubsetOf(ClaudeCodeTranslator.HANDLED);
        }
    }

    /**
     * Hand-written: what the scripted runs do not produce — a thinking block, text, Bash and Edit
     * uses whose results are a string and text blocks.
     */
    @Test
    void aSyntheticSessionBecomesReasoningTextToolCallsResultsAndRunFinished() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.CLAUDE_CODE,
                        Transcripts.journal("claude-code-synthetic.ndjson", 0),
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
        Transcripts.translateLines(t, lines("claude-code-synthetic.ndjson"), 0, "");
        assertThat(t.usage())
                .hasValueSatisfying(
                        u -> {
                            assertThat(u.getInt("input_tokens")).isEqualTo(16);
                            assertThat(u.getInt("output_tokens")).isEqualTo(178);
                        });
    }

    /** Hand-written: an error subtype without result text, after a plain-text line. */
    @Test
    void errorResultIsRunErrorAndTheExitAddsNothing() {
        ClaudeCodeTranslator t = translator();
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        t, lines("claude-code-max-turns.ndjson"), 1, "max turns");
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
    void aDenialOfAToolUseNeverSeenHasNoToolCallId() {
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                "{\"type\":\"system\",\"subtype\":\"permission_denied\",\"tool_name\":\"Write\",\"tool_use_id\":\"toolu_x\",\"message\":\"no\"}"),
                        0,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=claude-code.permission-denied value={\"message\":\"no\",\"tool\":\"Write\"}",
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
