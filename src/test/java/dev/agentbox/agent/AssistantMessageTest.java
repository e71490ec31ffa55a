package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AssistantMessageTest {

    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    private static JsonArray parts(AssistantMessage m) {
        return m.toJson("fallback", AT).orElseThrow().getJsonArray("parts");
    }

    @Test
    void aRunsChunksBecomeTextToolAndThinkingPartsInOrder() {
        AssistantMessage m = new AssistantMessage(new AssistantMessage.Budget(10_000));
        for (String c :
                new String[] {
                    "{\"type\":\"RUN_STARTED\"}",
                    "{\"type\":\"CUSTOM\",\"name\":\"run.accepted\",\"value\":{}}",
                    "{\"type\":\"REASONING_MESSAGE_CONTENT\",\"delta\":\"hm\"}",
                    "{\"type\":\"REASONING_MESSAGE_CONTENT\",\"delta\":\"m\"}",
                    "{\"type\":\"REASONING_MESSAGE_END\"}",
                    "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"r-0\",\"role\":\"assistant\"}",
                    "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"r-0\",\"delta\":\"Hel\"}",
                    "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"r-0\",\"delta\":\"lo\"}",
                    "{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"r-0\"}",
                    "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"r-1\",\"toolCallName\":\"ls\"}",
                    "{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"r-1\",\"delta\":\"{\\\"p\\\"\"}",
                    "{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"r-1\",\"delta\":\":1}\"}",
                    "{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"r-1\"}",
                    "{\"type\":\"TOOL_CALL_RESULT\",\"toolCallId\":\"r-1\",\"messageId\":\"r-2\",\"content\":\"a.txt\"}",
                    "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"r-3\",\"role\":\"assistant\"}",
                    "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"r-3\",\"delta\":\"bye\"}",
                    "{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"r-3\"}",
                    "{\"type\":\"RUN_FINISHED\"}"
                }) {
            m.accept(json(c));
        }

        JsonObject message = m.toJson("fallback", AT).orElseThrow();
        assertThat(message.getString("id")).isEqualTo("r-0");
        assertThat(message.getString("role")).isEqualTo("assistant");
        assertThat(message.getString("createdAt")).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(message.getJsonArray("parts"))
                .containsExactly(
                        json("{\"type\":\"thinking\",\"content\":\"hmm\"}"),
                        json("{\"type\":\"text\",\"content\":\"Hello\"}"),
                        json(
                                "{\"type\":\"tool-call\",\"id\":\"r-1\",\"name\":\"ls\",\"arguments\":\"{\\\"p\\\":1}\",\"state\":\"input-complete\"}"),
                        json(
                                "{\"type\":\"tool-result\",\"toolCallId\":\"r-1\",\"content\":\"a.txt\",\"state\":\"complete\"}"),
                        json("{\"type\":\"text\",\"content\":\"bye\"}"));
    }

    @Test
    void aRunWithoutContentHasNoAssistantMessage() {
        AssistantMessage m = new AssistantMessage(new AssistantMessage.Budget(1000));
        m.accept(json("{\"type\":\"RUN_STARTED\"}"));
        m.accept(json("{\"type\":\"RUN_ERROR\",\"message\":\"x\"}"));
        assertThat(m.toJson("f", AT)).isEmpty();
    }

    /** AG-07: the transcript is bounded by one budget of characters shared by its messages. */
    @Test
    void textBeyondTheSharedBudgetIsLeftOut() {
        AssistantMessage.Budget budget =
                new AssistantMessage.Budget(2 * AssistantMessage.Budget.PART_CHARS + 5);
        AssistantMessage first = new AssistantMessage(budget);
        first.accept(json("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"abc\"}"));
        AssistantMessage second = new AssistantMessage(budget);
        second.accept(json("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"defgh\"}"));

        assertThat(parts(first).getJsonObject(0).getString("content")).isEqualTo("abc");
        assertThat(parts(second).getJsonObject(0).getString("content")).isEqualTo("de");
        assertThat(second.toJson("fallback", AT).orElseThrow().getString("id"))
                .isEqualTo("fallback");
    }

    /** AG-07: every part costs budget, so countless empty tool calls cannot grow the answer. */
    @Test
    void everyPartCostsBudgetSoEmptyToolCallsCannotGrowTheTranscriptUnbounded() {
        AssistantMessage.Budget budget =
                new AssistantMessage.Budget(10 * AssistantMessage.Budget.PART_CHARS);
        AssistantMessage m = new AssistantMessage(budget);
        for (int i = 0; i < 2_000; i++) {
            m.accept(
                    json(
                            "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"t"
                                    + i
                                    + "\",\"toolCallName\":\"x\"}"));
            m.accept(json("{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"t" + i + "\"}"));
        }
        assertThat(parts(m)).hasSize(10);
    }
}
