package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** An approval interrupt names the streamed tool call it is about (AG-21). */
class ApprovedToolCallsTest {

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    private static JsonObject start(String id, String name) {
        return json(
                "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\""
                        + id
                        + "\",\"toolCallName\":\""
                        + name
                        + "\"}");
    }

    private static JsonObject args(String id, String delta) {
        return Json.createObjectBuilder()
                .add("type", "TOOL_CALL_ARGS")
                .add("toolCallId", id)
                .add("delta", delta)
                .build();
    }

    private static JsonObject approval(String tool, String arguments) {
        return json(
                "{\"id\":\"i1\",\"reason\":\"approval\",\"tool\":\""
                        + tool
                        + "\",\"arguments\":"
                        + arguments
                        + "}");
    }

    private static ApprovedToolCalls seen(JsonObject... chunks) {
        ApprovedToolCalls calls = new ApprovedToolCalls();
        for (JsonObject c : chunks) {
            calls.accept(c.getString("type"), c);
        }
        return calls;
    }

    @Test
    void anApprovalGetsTheIdOfTheUnansweredCallOfItsToolWithEqualArguments() {
        ApprovedToolCalls calls =
                seen(
                        start("r-1", "Bash"),
                        args("r-1", "{\"command\":\"ls\"}"),
                        start("r-2", "Bash"),
                        args("r-2", "{\"command\":"),
                        args("r-2", "\"touch x\",\"description\":\"d\"}"),
                        start("r-3", "Write"),
                        args("r-3", "{\"command\":\"touch x\",\"description\":\"d\"}"));

        JsonObject named =
                calls.withToolCallId(
                        approval("Bash", "{\"description\":\"d\",\"command\":\"touch x\"}"));

        assertThat(named.getString("toolCallId")).isEqualTo("r-2");
        assertThat(named.getString("tool")).isEqualTo("Bash");
    }

    @Test
    void aCallThatHasItsResultIsNotTheOneAwaitingApproval() {
        ApprovedToolCalls calls =
                seen(
                        start("r-1", "Bash"),
                        args("r-1", "{\"command\":\"ls\"}"),
                        json(
                                "{\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"m\",\"toolCallId\":\"r-1\",\"content\":\"\"}"));

        assertThat(calls.withToolCallId(approval("Bash", "{\"command\":\"ls\"}")))
                .doesNotContainKey("toolCallId");
    }

    @Test
    void withoutAMatchingCallOrForAClientToolTheInterruptIsLeftAsItIs() {
        ApprovedToolCalls calls = seen(start("r-1", "Bash"), args("r-1", "{\"command\":\"ls\"}"));

        assertThat(calls.withToolCallId(approval("Bash", "{\"command\":\"rm\"}")))
                .doesNotContainKey("toolCallId");
        assertThat(calls.withToolCallId(approval("Edit", "{\"command\":\"ls\"}")))
                .doesNotContainKey("toolCallId");
        JsonObject clientTool =
                json(
                        "{\"id\":\"i2\",\"reason\":\"client_tool_input\",\"toolCallId\":\"agentbox-tool-1\","
                                + "\"tool\":\"Bash\",\"arguments\":{\"command\":\"ls\"}}");
        assertThat(calls.withToolCallId(clientTool)).isEqualTo(clientTool);
    }

    @Test
    void argumentsThatAreNotJsonMatchNothing() {
        ApprovedToolCalls calls = seen(start("r-1", "Bash"), args("r-1", "{\"command\":"));

        assertThat(calls.withToolCallId(approval("Bash", "{}"))).doesNotContainKey("toolCallId");
    }

    @Test
    void aCallWithoutArgumentsMatchesAnApprovalOfEmptyArguments() {
        ApprovedToolCalls calls = seen(start("r-1", "Read"));

        assertThat(calls.withToolCallId(approval("Read", "{}")).getString("toolCallId"))
                .isEqualTo("r-1");
    }
}
