package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The AG-UI run cut from a base run's log at an interrupt (AG-20). */
class AgUiSegmentTest {

    private static final JsonArray SNAPSHOT =
            Json.createArrayBuilder()
                    .add(
                            Json.createObjectBuilder()
                                    .add("id", "u")
                                    .add("role", "user")
                                    .add("content", "hi"))
                    .build();

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    /** The base run's log: a text message left open, a tool call, the interrupt, more. */
    private static final List<JsonObject> LOG =
            List.of(
                    json("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"base\"}"),
                    json(
                            "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"assistant\"}"),
                    json(
                            "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"a\"}"),
                    json(
                            "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c1\",\"toolCallName\":\"pick\"}"),
                    json("{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"c1\",\"delta\":\"{}\"}"),
                    json("{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"c1\"}"),
                    json(
                            "{\"type\":\"CUSTOM\",\"name\":\"interrupt.requested\",\"value\":{\"id\":\"i1\","
                                    + "\"reason\":\"client_tool_input\",\"toolCallId\":\"c1\",\"tool\":\"pick\","
                                    + "\"arguments\":{},\"expiresAt\":\"2030-01-01T00:00:00Z\"}}"),
                    json(
                            "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"b\"}"),
                    json("{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m1\"}"),
                    json(
                            "{\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"x\",\"toolCallId\":\"c1\",\"content\":\"teal\"}"),
                    json("{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"base\"}"));

    private static List<AgUiSegment.Event> stream(AgUiSegment.Spec spec, long after) {
        AgUiSegment s = new AgUiSegment(spec, after, seq -> SNAPSHOT);
        List<AgUiSegment.Event> out = new ArrayList<>();
        for (int i = 0; i < LOG.size(); i++) {
            long seq = i + 1;
            if (seq <= AgUiSegment.readAfter(spec, after) || s.ended()) {
                continue;
            }
            out.addAll(s.accept(seq, LOG.get(i)));
        }
        return out;
    }

    private static List<String> types(List<AgUiSegment.Event> events) {
        return events.stream().map(AgUiSegment.Event::type).toList();
    }

    @Test
    void theFirstAgUiRunEndsAtTheInterruptWithItsMessagesClosedAndSnapshotsBeforeItsEnd() {
        List<AgUiSegment.Event> events = stream(new AgUiSegment.Spec("t", "base", 0, false), 0);

        assertThat(types(events))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START",
                        "TEXT_MESSAGE_CONTENT",
                        "TOOL_CALL_START",
                        "TOOL_CALL_ARGS",
                        "TOOL_CALL_END",
                        "TEXT_MESSAGE_END",
                        "STATE_SNAPSHOT",
                        "MESSAGES_SNAPSHOT",
                        "RUN_FINISHED");
        JsonObject end = events.get(events.size() - 1).data();
        assertThat(end.getString("runId")).isEqualTo("base");
        JsonObject interrupt =
                end.getJsonObject("outcome").getJsonArray("interrupts").getJsonObject(0);
        assertThat(interrupt.getString("id")).isEqualTo("i1");
        assertThat(interrupt.getString("reason")).isEqualTo("client_tool_input");
        assertThat(interrupt.getString("toolCallId")).isEqualTo("c1");
        assertThat(interrupt.getJsonObject("metadata").getString("kind")).isEqualTo("client_tool");
        assertThat(interrupt.getJsonObject("metadata").getString("toolName")).isEqualTo("pick");
        assertThat(events.get(events.size() - 2).data().getJsonArray("messages"))
                .isEqualTo(SNAPSHOT);
        // The events added at the interrupt chunk (7) have ids of their own: 7.1, 7.2, …
        assertThat(events.subList(6, 10))
                .extracting(AgUiSegment.Event::id)
                .containsExactly("7.1", "7.2", "7.3", "7.4");
        assertThat(AgUiSegment.resumePoint("7.3")).isEqualTo("6");
        assertThat(AgUiSegment.resumePoint("7")).isEqualTo("7");
    }

    @Test
    void aContinuationStartsWithItsOwnRunStartedDropsWhatTheFirstClosedAndEndsAsItself() {
        List<AgUiSegment.Event> events = stream(new AgUiSegment.Spec("t", "next", 7, true), 0);

        assertThat(types(events))
                .containsExactly("RUN_STARTED", "TOOL_CALL_RESULT", "RUN_FINISHED");
        assertThat(events.get(0).id()).isEqualTo("7");
        assertThat(events.get(0).data().getString("runId")).isEqualTo("next");
        assertThat(events.get(2).data().getString("runId")).isEqualTo("next");
        assertThat(events.get(2).data().getString("threadId")).isEqualTo("t");
    }

    @Test
    void aContinuationResumedAfterItsRunStartedDoesNotRepeatIt() {
        List<AgUiSegment.Event> events = stream(new AgUiSegment.Spec("t", "next", 7, true), 7);

        assertThat(types(events)).containsExactly("TOOL_CALL_RESULT", "RUN_FINISHED");
    }

    @Test
    void anApprovalReadsAsApprovalRequiredWithItsToolAndInput() {
        JsonObject i =
                AgUiInterrupts.toAgUi(
                        json(
                                "{\"id\":\"i\",\"reason\":\"approval\",\"tool\":\"Bash\","
                                        + "\"arguments\":{\"command\":\"ls\"},\"expiresAt\":\"2030-01-01T00:00:00Z\"}"));

        assertThat(i.getString("reason")).isEqualTo("approval_required");
        assertThat(i.getJsonObject("metadata").getString("kind")).isEqualTo("approval");
        assertThat(i.getJsonObject("metadata").getJsonObject("input").getString("command"))
                .isEqualTo("ls");
        assertThat(i.containsKey("toolCallId")).isFalse();
    }
}
