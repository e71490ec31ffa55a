package dev.agentbox.run.harness;

import static dev.agentbox.testing.AgUiAssert.assertValidAgUiLog;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.AcpConversation.Step;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The {@code acp} harness: an agent's JSON-RPC lines to steps and AG-UI chunks (AC-02, AC-08). */
class AcpTranslatorTest {

    static final String INIT =
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1,\"agentCapabilities\":"
                    + "{\"loadSession\":true,\"sessionCapabilities\":{\"resume\":{}},\"future\":7}}}";
    static final String NEW =
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"sessionId\":\"s-1\",\"modes\":"
                    + "{\"currentModeId\":\"default\",\"availableModes\":[{\"id\":\"default\",\"name\":\"D\"},"
                    + "{\"id\":\"acceptEdits\",\"name\":\"E\"},{\"id\":\"bypassPermissions\",\"name\":\"B\"}]}}}";
    static final String PROMPT_DONE =
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"stopReason\":\"end_turn\"}}";

    static String update(String u) {
        return "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s-1\",\"update\":"
                + u
                + "}}";
    }

    static AcpPlan plan() {
        return new AcpPlan(
                "custom",
                Optional.empty(),
                PermissionMode.FALLBACK,
                false,
                false,
                Optional.empty());
    }

    static List<JsonObject> translate(AcpPlan plan, int exit, String... lines) {
        AtomicLong clock = new AtomicLong();
        HarnessTranslator t = Harness.ACP.translator("r", "t", clock::incrementAndGet, plan);
        List<JsonObject> out = new ArrayList<>(t.onStart());
        for (String l : lines) {
            out.addAll(t.onLine(l));
        }
        out.addAll(t.onExit(exit, ""));
        assertValidAgUiLog(out);
        return out;
    }

    static List<String> summary(List<JsonObject> chunks) {
        return chunks.stream()
                .map(
                        c ->
                                c.getString("type")
                                        + (c.containsKey("name") ? " " + c.getString("name") : "")
                                        + (c.containsKey("delta") ? " " + c.getString("delta") : "")
                                        + (c.containsKey("toolCallName")
                                                ? " " + c.getString("toolCallName")
                                                : ""))
                .toList();
    }

    @Test
    void theTurnSendsInitializeThenANewSessionThenTheModeThenThePrompt() {
        AcpConversation c = new AcpConversation(plan());
        assertThat(c.start()).containsExactly(new Step.Send(1, "initialize", Optional.empty()));
        assertThat(c.onLine(INIT))
                .containsExactly(new Step.Send(2, "session/new", Optional.empty()));
        assertThat(c.onLine(NEW))
                .containsExactly(
                        new Step.Opened("s-1", false),
                        new Step.Send(3, "session/set_mode", Optional.of("bypassPermissions")));
        assertThat(c.onLine("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"))
                .containsExactly(new Step.Send(4, "session/prompt", Optional.empty()));
        assertThat(c.onLine(PROMPT_DONE))
                .containsExactly(new Step.Answered("end_turn"), new Step.End());
        assertThat(c.ended()).isTrue();
    }

    @Test
    void aThreadsSessionIsResumedWhereOfferedAndLoadedOtherwise() {
        AcpPlan continuing = plan().continuing(Optional.of("s-0"));
        AcpConversation resumes = new AcpConversation(continuing);
        resumes.start();
        assertThat(resumes.onLine(INIT))
                .containsExactly(new Step.Send(2, "session/resume", Optional.empty()));
        AcpConversation loads = new AcpConversation(continuing);
        loads.start();
        assertThat(
                        loads.onLine(
                                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1,"
                                        + "\"agentCapabilities\":{\"loadSession\":true}}}"))
                .containsExactly(new Step.Send(2, "session/load", Optional.empty()));
        // History replayed before the load's answer is not this run's.
        assertThat(
                        loads.onLine(
                                update(
                                        "{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"old\"}}")))
                .singleElement()
                .matches(s -> s instanceof Step.Update u && u.replayed());
        assertThat(loads.onLine("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"))
                .startsWith(new Step.Opened("s-0", true));
    }

    @Test
    void aRefusedLoadFallsBackToANewSession() {
        AcpConversation c = new AcpConversation(plan().continuing(Optional.of("gone")));
        c.start();
        c.onLine(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1,"
                        + "\"agentCapabilities\":{\"loadSession\":true}}}");
        assertThat(
                        c.onLine(
                                "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32002,\"message\":\"no such session\"}}"))
                .containsExactly(new Step.Send(5, "session/new", Optional.empty()));
        assertThat(c.onLine(NEW.replace("\"id\":2", "\"id\":5")))
                .startsWith(new Step.Opened("s-1", false));
    }

    @Test
    void approvalRulesThatAskKeepTheAgentInAnAskingMode() throws Exception {
        AcpPlan asks =
                new AcpPlan(
                        "claude",
                        Optional.empty(),
                        PermissionMode.FALLBACK,
                        true,
                        true,
                        Optional.empty());
        AcpMessages.SessionModeState modes =
                AcpMessages.read(
                                "{\"currentModeId\":\"plan\",\"availableModes\":[{\"id\":\"default\"},"
                                        + "{\"id\":\"bypassPermissions\"},{\"id\":\"plan\"}]}",
                                AcpMessages.SessionModeState.class)
                        .orElseThrow();
        assertThat(asks.modeToSet(modes)).contains("default");
        assertThat(plan().modeToSet(modes)).contains("bypassPermissions");
    }

    @Test
    void aModeTheAgentDoesNotOfferFailsTheRun() {
        AcpPlan named =
                new AcpPlan(
                        "custom",
                        Optional.of("turbo"),
                        PermissionMode.FALLBACK,
                        false,
                        false,
                        Optional.empty());
        List<JsonObject> chunks = translate(named, 0, INIT, NEW);
        JsonObject last = chunks.get(chunks.size() - 1);
        assertThat(last.getString("type")).isEqualTo("RUN_ERROR");
        assertThat(last.getString("code")).isEqualTo("agent-error");
        assertThat(last.getString("message")).contains("no mode \"turbo\"", "bypassPermissions");
    }

    @Test
    void updatesBecomeTextReasoningToolCallsAndCustomChunks() {
        List<JsonObject> chunks =
                translate(
                        plan(),
                        0,
                        INIT,
                        NEW,
                        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}",
                        update(
                                "{\"sessionUpdate\":\"agent_thought_chunk\",\"content\":{\"type\":\"text\",\"text\":\"hm\"}}"),
                        update(
                                "{\"sessionUpdate\":\"agent_thought_chunk\",\"content\":{\"type\":\"text\",\"text\":\"m\"}}"),
                        update(
                                "{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"Hel\"}}"),
                        update(
                                "{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"lo\"}}"),
                        update(
                                "{\"sessionUpdate\":\"tool_call\",\"toolCallId\":\"c1\",\"title\":\"Write a.txt\",\"kind\":\"edit\",\"status\":\"pending\",\"rawInput\":{\"path\":\"a.txt\"}}"),
                        update(
                                "{\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"c1\",\"status\":\"completed\",\"content\":[{\"type\":\"diff\",\"path\":\"/w/a.txt\",\"oldText\":null,\"newText\":\"hi\"},{\"type\":\"content\",\"content\":{\"type\":\"text\",\"text\":\"ok\"}}]}"),
                        update(
                                "{\"sessionUpdate\":\"plan\",\"entries\":[{\"content\":\"x\",\"priority\":\"high\",\"status\":\"pending\"}]}"),
                        update("{\"sessionUpdate\":\"future_kind\",\"payload\":{\"a\":1}}"),
                        "not json",
                        PROMPT_DONE);
        assertThat(summary(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM acp.session",
                        "REASONING_START",
                        "REASONING_MESSAGE_START",
                        "REASONING_MESSAGE_CONTENT hm",
                        "REASONING_MESSAGE_CONTENT m",
                        "REASONING_MESSAGE_END",
                        "REASONING_END",
                        "TEXT_MESSAGE_START",
                        "TEXT_MESSAGE_CONTENT Hel",
                        "TEXT_MESSAGE_CONTENT lo",
                        "TEXT_MESSAGE_END",
                        "TOOL_CALL_START edit: Write a.txt",
                        "TOOL_CALL_ARGS {\"path\":\"a.txt\"}",
                        "TOOL_CALL_END",
                        "TOOL_CALL_RESULT",
                        "CUSTOM acp.plan",
                        "CUSTOM acp.update",
                        "CUSTOM agent.text",
                        "RUN_FINISHED");
        JsonObject result = chunks.get(15);
        assertThat(result.getString("content")).isEqualTo("--- /dev/null\n+++ /w/a.txt\n+hi\nok");
        assertThat(chunks.get(17).getJsonObject("value").getString("sessionUpdate"))
                .isEqualTo("future_kind");
    }

    @Test
    void aPromptErrorIsTheRunsErrorAndOtherStopReasonsAreReported() {
        List<JsonObject> failed =
                translate(
                        plan(),
                        0,
                        INIT,
                        NEW,
                        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}",
                        "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32000,\"message\":\"model API error: 401\"}}");
        JsonObject last = failed.get(failed.size() - 1);
        assertThat(last.getString("code")).isEqualTo("agent-error");
        assertThat(last.getString("message")).contains("model API error: 401");

        List<JsonObject> refused =
                translate(
                        plan(),
                        0,
                        INIT,
                        NEW,
                        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}",
                        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"stopReason\":\"refusal\"}}");
        assertThat(summary(refused)).endsWith("CUSTOM acp.stop", "RUN_FINISHED");
    }

    @Test
    void anAgentThatExitsWithoutAnsweringThePromptFails() {
        List<JsonObject> chunks = translate(plan(), 0, INIT, NEW);
        JsonObject last = chunks.get(chunks.size() - 1);
        assertThat(last.getString("type")).isEqualTo("RUN_ERROR");
        assertThat(last.getString("message")).contains("before it answered the prompt");
    }

    @Test
    void anAgentOfAnotherProtocolVersionIsRefused() {
        List<JsonObject> chunks =
                translate(
                        plan(),
                        0,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":2,\"agentCapabilities\":{}}}");
        assertThat(chunks.get(chunks.size() - 1).getString("message")).contains("ACP version 2");
    }

    @Test
    void translatingTheSameLinesTwiceGivesTheSameChunks() {
        String[] lines = {
            INIT,
            NEW,
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}",
            update(
                    "{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"a\"}}"),
            PROMPT_DONE
        };
        assertThat(translate(plan(), 0, lines)).isEqualTo(translate(plan(), 0, lines));
    }
}
