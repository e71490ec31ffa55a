package dev.agentbox.run.harness;

import static dev.agentbox.run.harness.Transcripts.summaries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.json.JsonObject;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CommandTranslatorTest {

    private final AtomicLong clock = new AtomicLong(1_000);

    private CommandTranslator translator() {
        return new CommandTranslator(Transcripts.RUN, Transcripts.THREAD, clock::incrementAndGet);
    }

    private List<String> run(List<String> lines, int exitCode, String stderr) {
        return summaries(Transcripts.translateLines(translator(), lines, exitCode, stderr));
    }

    @Test
    void mixedTranscriptTranslatesPerTheCommandHarnessRules() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.COMMAND,
                        Transcripts.journal("command-mixed.ndjson", 0),
                        5,
                        "",
                        clock::incrementAndGet);
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=Hello",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "TOOL_CALL_START toolCallId=r-1 toolCallName=search",
                        "TOOL_CALL_ARGS toolCallId=r-1 delta={\"q\":\"x\"}",
                        "TOOL_CALL_END toolCallId=r-1",
                        "TOOL_CALL_RESULT messageId=r-2 toolCallId=r-1 content=found 1",
                        "TEXT_MESSAGE_START messageId=r-3 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-3 delta=Part one, ",
                        "TEXT_MESSAGE_CONTENT messageId=r-3 delta=part two.",
                        "TEXT_MESSAGE_END messageId=r-3",
                        "CUSTOM name=agent.text value=plain text from the agent",
                        "TEXT_MESSAGE_START messageId=r-4 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-4 delta=again",
                        "TEXT_MESSAGE_END messageId=r-4",
                        "CUSTOM name=agent.output value={\"progress\":0.5,\"step\":\"build\"}",
                        "CUSTOM name=my.event value={\"k\":[1,2]}",
                        "TEXT_MESSAGE_START messageId=r-5 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-5 delta=tail",
                        "TEXT_MESSAGE_END messageId=r-5",
                        "RUN_FINISHED");
    }

    /** AL-06: an agent cannot forge a chunk the service writes on its own account. */
    @Test
    void aCustomLineNamedLikeAServiceChunkIsAgentOutputNotAServiceChunk() {
        String fileChanged =
                "{\"type\":\"CUSTOM\",\"name\":\"file.changed\",\"value\":"
                        + "{\"path\":\"/workspace/a\",\"kind\":\"create\"}}";
        String accepted = "{\"type\":\"CUSTOM\",\"name\":\"run.accepted\",\"value\":{}}";
        List<JsonObject> chunks =
                Transcripts.translateLines(
                        translator(),
                        List.of(
                                fileChanged,
                                accepted,
                                "{\"type\":\"CUSTOM\",\"name\":\"x\",\"value\":1}"),
                        0,
                        "");
        assertThat(summaries(chunks))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=agent.output value={\"name\":\"file.changed\",\"type\":\"CUSTOM\","
                                + "\"value\":{\"kind\":\"create\",\"path\":\"/workspace/a\"}}",
                        "CUSTOM name=agent.output value={\"name\":\"run.accepted\",\"type\":\"CUSTOM\","
                                + "\"value\":{}}",
                        "CUSTOM name=x value=1",
                        "RUN_FINISHED");
        assertThat(chunks).noneMatch(Chunks::isServiceChunk);
    }

    @Test
    void everyChunkCarriesTheServicesThreadRunAndTimestampAndIsValid() {
        List<JsonObject> chunks =
                Transcripts.translateJournal(
                        Harness.COMMAND,
                        Transcripts.journal("command-mixed.ndjson", 0),
                        64,
                        "",
                        clock::incrementAndGet);
        for (JsonObject chunk : chunks) {
            assertThat(chunk.getString("threadId")).isEqualTo("t");
            assertThat(chunk.getString("runId")).isEqualTo("r");
            assertThat(chunk.getJsonNumber("timestamp").longValue()).isGreaterThan(1_000);
            assertThat(Chunks.problems(chunk)).as(chunk.toString()).isEmpty();
        }
    }

    @Test
    void agentSuppliedIdsAreKept() {
        assertThat(
                        run(
                                List.of(
                                        "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"user\"}",
                                        "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"x\"}",
                                        "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c1\",\"toolCallName\":\"n\"}",
                                        "{\"type\":\"TOOL_CALL_END\"}"),
                                0,
                                ""))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START messageId=m1 role=user",
                        "TEXT_MESSAGE_CONTENT messageId=m1 delta=x",
                        "TOOL_CALL_START toolCallId=c1 toolCallName=n",
                        "TOOL_CALL_END toolCallId=c1",
                        "TEXT_MESSAGE_END messageId=m1",
                        "RUN_FINISHED");
    }

    @Test
    void openDeltaMessageIsClosedBeforeTheEndOfTheRun() {
        assertThat(run(List.of("{\"delta\":\"a\"}"), 0, ""))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=a",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED");
    }

    @Test
    void explicitEndOfTheOpenDeltaMessageIsNotDoubled() {
        assertThat(
                        run(
                                List.of(
                                        "{\"delta\":\"a\"}",
                                        "{\"type\":\"TEXT_MESSAGE_END\"}",
                                        "{\"delta\":\"b\"}"),
                                0,
                                ""))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=a",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "TEXT_MESSAGE_START messageId=r-1 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-1 delta=b",
                        "TEXT_MESSAGE_END messageId=r-1",
                        "RUN_FINISHED");
    }

    @Test
    void openDeltaMessageIsClosedBeforeAnExplicitChunkOfAnotherType() {
        assertThat(
                        run(
                                List.of(
                                        "{\"delta\":\"a\"}",
                                        "{\"type\":\"TOOL_CALL_START\",\"toolCallName\":\"n\"}",
                                        "{\"delta\":\"b\"}",
                                        "{\"type\":\"TEXT_MESSAGE_START\"}"),
                                0,
                                ""))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=a",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "TOOL_CALL_START toolCallId=r-1 toolCallName=n",
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=b",
                        "TEXT_MESSAGE_END messageId=r-2",
                        "TEXT_MESSAGE_START messageId=r-3 role=assistant",
                        "TEXT_MESSAGE_END messageId=r-3",
                        "TOOL_CALL_END toolCallId=r-1",
                        "RUN_FINISHED");
    }

    @Test
    void explicitMessageIsNotCutByOtherChunksButIsEndedAtTheExit() {
        assertThat(
                        run(
                                List.of(
                                        "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}",
                                        "plain",
                                        "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"x\"}",
                                        "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"k\"}",
                                        "{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"k\"}"),
                                1,
                                "e"))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START messageId=m role=assistant",
                        "CUSTOM name=agent.text value=plain",
                        "TEXT_MESSAGE_CONTENT messageId=m delta=x",
                        "TEXT_MESSAGE_START messageId=k role=assistant",
                        "TEXT_MESSAGE_END messageId=k",
                        "TEXT_MESSAGE_END messageId=m",
                        "RUN_ERROR message=Agent process exited with code 1: e code=agent-exit");
    }

    @Test
    void explicitContentWithoutIdContinuesTheOpenDeltaMessage() {
        assertThat(
                        run(
                                List.of(
                                        "{\"delta\":\"a\"}",
                                        "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"b\"}"),
                                0,
                                ""))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=a",
                        "TEXT_MESSAGE_CONTENT messageId=r-0 delta=b",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED");
    }

    @Test
    void emptyDeltaYieldsNothing() {
        assertThat(run(List.of("{\"delta\":\"\"}"), 0, ""))
                .containsExactly("RUN_STARTED", "RUN_FINISHED");
    }

    @Test
    void deltaWithOtherMembersIsAgentOutput() {
        assertThat(run(List.of("{\"delta\":\"a\",\"x\":1}"), 0, ""))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=agent.output value={\"delta\":\"a\",\"x\":1}",
                        "RUN_FINISHED");
    }

    @Test
    void linesThatAreNotAJsonObjectAreAgentText() {
        assertThat(run(List.of("[1,2]", "42", "{broken", "{\"a\":1} trailing", ""), 0, ""))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=agent.text value=[1,2]",
                        "CUSTOM name=agent.text value=42",
                        "CUSTOM name=agent.text value={broken",
                        "CUSTOM name=agent.text value={\"a\":1} trailing",
                        "CUSTOM name=agent.text value=",
                        "RUN_FINISHED");
    }

    @Test
    void agentLifecycleChunksAreOutputNotLifecycle() {
        assertThat(
                        run(
                                List.of(
                                        "{\"type\":\"RUN_FINISHED\"}",
                                        "{\"type\":\"RUN_ERROR\",\"message\":\"m\",\"code\":\"c\"}"),
                                0,
                                ""))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=agent.output value={\"type\":\"RUN_FINISHED\"}",
                        "CUSTOM name=agent.output value={\"code\":\"c\",\"message\":\"m\",\"type\":\"RUN_ERROR\"}",
                        "RUN_FINISHED");
    }

    @Test
    void typedLineMissingARequiredFieldIsAgentOutputAndConsumesNoId() {
        assertThat(
                        run(
                                List.of(
                                        "{\"type\":\"TOOL_CALL_START\"}",
                                        "{\"type\":\"CUSTOM\",\"name\":\"n\"}",
                                        "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":7}",
                                        "{\"type\":\"NOT_A_TYPE\"}",
                                        "{\"type\":\"TEXT_MESSAGE_START\"}"),
                                0,
                                ""))
                .containsExactly(
                        "RUN_STARTED",
                        "CUSTOM name=agent.output value={\"type\":\"TOOL_CALL_START\"}",
                        "CUSTOM name=agent.output value={\"name\":\"n\",\"type\":\"CUSTOM\"}",
                        "CUSTOM name=agent.output value={\"delta\":7,\"type\":\"TEXT_MESSAGE_CONTENT\"}",
                        "CUSTOM name=agent.output value={\"type\":\"NOT_A_TYPE\"}",
                        "TEXT_MESSAGE_START messageId=r-0 role=assistant",
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_FINISHED");
    }

    @Test
    void nonZeroExitIsRunErrorWithTheStderrTail() {
        assertThat(run(List.of("{\"delta\":\"a\"}"), 7, "boom\n"))
                .endsWith(
                        "TEXT_MESSAGE_END messageId=r-0",
                        "RUN_ERROR message=Agent process exited with code 7: boom code=agent-exit");
    }

    @Test
    void stderrTailIsTheLast1000Characters() {
        String stderr = "x".repeat(5000) + "y".repeat(1000) + "\n";
        List<JsonObject> chunks = Transcripts.translateLines(translator(), List.of(), 2, stderr);
        String message = chunks.get(chunks.size() - 1).getString("message");
        assertThat(message).isEqualTo("Agent process exited with code 2: " + "y".repeat(1000));
    }

    @Test
    void emptyStderrLeavesNoDanglingColon() {
        assertThat(run(List.of(), 3, ""))
                .containsExactly(
                        "RUN_STARTED",
                        "RUN_ERROR message=Agent process exited with code 3 code=agent-exit");
    }

    @Test
    void nothingFollowsTheTerminalChunk() {
        CommandTranslator t = translator();
        t.onStart();
        assertThat(t.onExit(0, "")).hasSize(1);
        assertThat(t.terminated()).isTrue();
        assertThat(t.onLine("{\"delta\":\"late\"}")).isEmpty();
        assertThat(t.onExit(1, "again")).isEmpty();
    }

    @Test
    void startIsEmittedOnce() {
        CommandTranslator t = translator();
        assertThat(summaries(t.onStart())).containsExactly("RUN_STARTED");
        assertThatThrownBy(t::onStart).isInstanceOf(IllegalStateException.class);
    }
}
