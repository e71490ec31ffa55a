package dev.agentbox.run.harness;

import static dev.agentbox.run.harness.Transcripts.summaries;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.CanonicalJson;
import dev.agentbox.testing.AgUiAssert;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * CH-04: a hostile agent of the {@code command} harness cannot break the run's AG-UI log. Every
 * translation here is also checked whole by {@link AgUiAssert} (in {@link Transcripts}).
 */
class AgentChunkGuardTest {

    private final AtomicLong clock = new AtomicLong(1_000);

    private List<JsonObject> run(List<String> lines, int exitCode) {
        return Transcripts.translateLines(
                new CommandTranslator(Transcripts.RUN, Transcripts.THREAD, clock::incrementAndGet),
                lines,
                exitCode,
                "");
    }

    private static String agentOutput(String line) {
        JsonObject object = Json.createReader(new StringReader(line)).readObject();
        return "CUSTOM name=agent.output value=" + CanonicalJson.of(object);
    }

    static Stream<Arguments> hostileLines() {
        String startM = "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}";
        String startC =
                "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\",\"toolCallName\":\"n\"}";
        String span = "{\"type\":\"REASONING_START\",\"messageId\":\"s\"}";
        String thought = "{\"type\":\"REASONING_MESSAGE_START\",\"messageId\":\"q\"}";
        String step = "{\"type\":\"STEP_STARTED\",\"stepName\":\"build\"}";
        return Stream.of(
                // sequence: content/end of a message that is not open, a second START
                hostile("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"x\",\"delta\":\"d\"}"),
                hostile("{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"x\"}"),
                hostile("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"no message yet\"}"),
                hostile(startM, "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}"),
                hostile(
                        startM,
                        "{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}",
                        "{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}"),
                // tool calls
                hostile("{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"x\",\"delta\":\"{}\"}"),
                hostile("{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"x\"}"),
                hostile(startC, startC),
                hostile(
                        startC,
                        "{\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"c\"}",
                        "{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"c\",\"delta\":\"late\"}"),
                // reasoning
                hostile("{\"type\":\"REASONING_END\",\"messageId\":\"s\"}"),
                hostile(span, span),
                hostile(
                        "{\"type\":\"REASONING_MESSAGE_CONTENT\",\"messageId\":\"q\",\"delta\":\"d\"}"),
                hostile("{\"type\":\"REASONING_MESSAGE_END\",\"messageId\":\"q\"}"),
                hostile(thought, thought),
                hostile(
                        "{\"type\":\"REASONING_MESSAGE_START\",\"messageId\":\"q\",\"role\":\"assistant\"}"),
                // steps
                hostile("{\"type\":\"STEP_FINISHED\",\"stepName\":\"build\"}"),
                hostile(step, step),
                hostile("{\"type\":\"STEP_STARTED\"}"),
                // fields of the wrong JSON type or value
                hostile("{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":5}"),
                hostile("{\"type\":\"TEXT_MESSAGE_START\",\"role\":\"tool\"}"),
                hostile("{\"type\":\"TEXT_MESSAGE_START\",\"name\":[]}"),
                hostile("{\"type\":\"TOOL_CALL_START\",\"toolCallName\":1}"),
                hostile(
                        "{\"type\":\"TOOL_CALL_START\",\"toolCallName\":\"n\",\"parentMessageId\":{}}"),
                hostile(startC, "{\"type\":\"TOOL_CALL_ARGS\",\"delta\":{\"a\":1}}"),
                hostile("{\"type\":\"TOOL_CALL_RESULT\",\"toolCallId\":\"c\",\"content\":{}}"),
                hostile(
                        "{\"type\":\"TOOL_CALL_RESULT\",\"toolCallId\":\"c\",\"content\":\"x\",\"role\":\"user\"}"),
                hostile(
                        "{\"type\":\"TOOL_CALL_RESULT\",\"toolCallId\":\"c\",\"content\":"
                                + "[{\"type\":\"image\",\"source\":{}}]}"),
                hostile("{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1,\"metadata\":\"m\"}"),
                hostile("{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1,\"metadata\":[1]}"),
                hostile("{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1,\"rawEvent\":null}"),
                hostile("{\"type\":\"CUSTOM\",\"name\":7,\"value\":1}"),
                hostile("{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1,\"subagentRunId\":null}"),
                hostile("{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1,\"subagentRunId\":\"a\"}"),
                hostile("{\"type\":\"TEXT_MESSAGE_START\",\"subagentRunId\":null}"),
                // types outside the vocabulary, and the lifecycle
                hostile("{\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[]}"),
                hostile("{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{}}"),
                hostile("{\"type\":\"STATE_DELTA\",\"delta\":[]}"),
                hostile("{\"type\":\"ACTIVITY_SNAPSHOT\",\"messageId\":\"a\"}"),
                hostile("{\"type\":\"RAW\",\"event\":{}}"),
                hostile("{\"type\":\"TEXT_MESSAGE_CHUNK\",\"delta\":\"d\"}"),
                hostile("{\"type\":\"SUBAGENT_STARTED\",\"subagentRunId\":\"a\",\"name\":\"n\"}"),
                hostile("{\"type\":\"REASONING_ENCRYPTED_VALUE\",\"subtype\":\"message\"}"),
                hostile("{\"type\":\"text_message_start\"}"),
                hostile("{\"type\":\"RUN_STARTED\"}"),
                hostile("{\"type\":\"RUN_FINISHED\"}"),
                hostile("{\"type\":\"RUN_ERROR\",\"message\":\"m\",\"code\":\"c\"}"));
    }

    /** The last of {@code lines} is the hostile one; the ones before set the scene. */
    private static Arguments hostile(String... lines) {
        return Arguments.of(List.of(lines));
    }

    @ParameterizedTest
    @MethodSource("hostileLines")
    void aChunkThatWouldBreakTheLogIsAgentOutputAndTheLogStaysValid(List<String> lines) {
        for (int exitCode : new int[] {0, 3}) {
            List<JsonObject> chunks = run(lines, exitCode);
            List<String> summaries = summaries(chunks);
            String hostile = lines.get(lines.size() - 1);
            assertThat(summaries).as("%s", summaries).contains(agentOutput(hostile));
            // The setup lines were accepted (only the hostile line is refused).
            long refused =
                    summaries.stream()
                            .filter(s -> s.startsWith("CUSTOM name=agent.output"))
                            .count();
            assertThat(refused).as("%s", summaries).isEqualTo(1);
        }
    }

    @Test
    void wellFormedStepsReasoningAndTextPartsAreKept() {
        List<String> summaries =
                summaries(
                        run(
                                List.of(
                                        "{\"type\":\"STEP_STARTED\",\"stepName\":\"build\"}",
                                        "{\"type\":\"REASONING_START\"}",
                                        "{\"type\":\"REASONING_MESSAGE_START\"}",
                                        "{\"type\":\"REASONING_MESSAGE_CONTENT\",\"delta\":\"hmm\"}",
                                        "{\"type\":\"REASONING_MESSAGE_END\"}",
                                        "{\"type\":\"REASONING_END\"}",
                                        "{\"type\":\"TOOL_CALL_START\",\"toolCallName\":\"t\"}",
                                        "{\"type\":\"TOOL_CALL_END\"}",
                                        "{\"type\":\"TOOL_CALL_RESULT\",\"content\":"
                                                + "[{\"type\":\"text\",\"text\":\"ok\"}]}",
                                        "{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":null,"
                                                + "\"metadata\":{\"k\":1}}",
                                        "{\"type\":\"STEP_FINISHED\",\"stepName\":\"build\"}"),
                                0));
        assertThat(summaries)
                .containsExactly(
                        "RUN_STARTED",
                        "STEP_STARTED stepName=build",
                        "REASONING_START messageId=r-0",
                        "REASONING_MESSAGE_START messageId=r-1 role=reasoning",
                        "REASONING_MESSAGE_CONTENT messageId=r-1 delta=hmm",
                        "REASONING_MESSAGE_END messageId=r-1",
                        "REASONING_END messageId=r-0",
                        "TOOL_CALL_START toolCallId=r-2 toolCallName=t",
                        "TOOL_CALL_END toolCallId=r-2",
                        "TOOL_CALL_RESULT messageId=r-3 toolCallId=r-2 content=[{\"text\":\"ok\",\"type\":\"text\"}]",
                        "CUSTOM name=n value=null",
                        "STEP_FINISHED stepName=build",
                        "RUN_FINISHED");
    }

    /** CH-03: whatever is open is closed before the terminal chunk, in a fixed order. */
    @Test
    void everythingLeftOpenIsClosedBeforeTheTerminalChunkInAFixedOrder() {
        List<String> lines =
                List.of(
                        "{\"type\":\"STEP_STARTED\",\"stepName\":\"s1\"}",
                        "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\",\"toolCallName\":\"t\"}",
                        "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}",
                        "{\"type\":\"REASONING_START\",\"messageId\":\"s\"}",
                        "{\"type\":\"REASONING_MESSAGE_START\",\"messageId\":\"q\"}",
                        "{\"delta\":\"open\"}");
        for (int exitCode : new int[] {0, 1}) {
            List<String> summaries = summaries(run(lines, exitCode));
            assertThat(summaries.subList(summaries.size() - 7, summaries.size() - 1))
                    .containsExactly(
                            "TEXT_MESSAGE_END messageId=r-0",
                            "REASONING_MESSAGE_END messageId=q",
                            "REASONING_END messageId=s",
                            "TEXT_MESSAGE_END messageId=m",
                            "TOOL_CALL_END toolCallId=c",
                            "STEP_FINISHED stepName=s1");
        }
    }

    /** CH-05: run-scoped ids pass over any id the agent already used. */
    @Test
    void anAgentIdShapedLikeARunScopedIdIsNeverIssuedAgain() {
        List<String> summaries =
                summaries(
                        run(
                                List.of(
                                        "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"r-0\"}",
                                        "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"r-1\",\"toolCallName\":\"t\"}",
                                        "{\"delta\":\"mine\"}"),
                                0));
        assertThat(summaries)
                .contains(
                        "TEXT_MESSAGE_START messageId=r-2 role=assistant",
                        "TEXT_MESSAGE_CONTENT messageId=r-2 delta=mine");
    }

    @Test
    void aRefusedLineConsumesNoId() {
        assertThat(
                        summaries(
                                run(
                                        List.of(
                                                "{\"type\":\"TOOL_CALL_ARGS\",\"delta\":\"x\"}",
                                                "{\"type\":\"TEXT_MESSAGE_END\"}",
                                                "{\"delta\":\"a\"}"),
                                        0)))
                .contains("TEXT_MESSAGE_START messageId=r-0 role=assistant");
    }

    @Test
    void aHostileTranscriptTranslatesIdenticallyTwice() {
        List<String> lines = new ArrayList<>();
        hostileLines().forEach(a -> lines.addAll((List<String>) a.get()[0]));
        List<JsonObject> first = run(lines, 0);
        clock.set(5_000_000);
        List<JsonObject> second = run(lines, 0);
        assertThat(second.stream().map(Chunks::fingerprint).toList())
                .isEqualTo(first.stream().map(Chunks::fingerprint).toList());
        AgUiAssert.assertValidAgUiLog(first);
    }
}
