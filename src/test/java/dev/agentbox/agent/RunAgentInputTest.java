package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.agent.RunAgentInput.Message;
import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunAgentInputTest {

    private static RunAgentInput parse(String s) {
        return RunAgentInput.parse(Json.createReader(new StringReader(s)).read());
    }

    private static String fieldOf(String body) {
        try {
            parse(body);
        } catch (ProblemException e) {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.detail()).doesNotContain("s3cret");
            return (String) e.extensions().get("field");
        }
        throw new AssertionError("not refused");
    }

    @Test
    void thePromptIsTheLastUserMessageAndEarlierTextMessagesAreKept() {
        RunAgentInput in =
                parse(
                        "{\"threadId\":\"t\",\"runId\":\"r\",\"parentRunId\":null,\"data\":{},\"resume\":null,"
                                + "\"tools\":[],\"context\":[],\"state\":{},\"messages\":["
                                + "{\"id\":\"1\",\"role\":\"system\",\"content\":\"be brief\"},"
                                + "{\"id\":\"2\",\"role\":\"user\",\"content\":\"hi\"},"
                                + "{\"id\":\"3\",\"role\":\"assistant\",\"content\":\"hello\"},"
                                + "{\"id\":\"4\",\"role\":\"assistant\",\"toolCalls\":[]},"
                                + "{\"id\":\"5\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                                + "{\"type\":\"binary\",\"mimeType\":\"image/png\"},{\"type\":\"text\",\"text\":\"b\"}]},"
                                + "{\"id\":\"6\",\"role\":\"tool\",\"content\":\"out\",\"toolCallId\":\"x\"}]}");

        assertThat(in.threadId()).isEqualTo("t");
        assertThat(in.runId()).isEqualTo("r");
        assertThat(in.userMessageId()).isEqualTo("5");
        assertThat(in.prompt()).isEqualTo("a\nb");
        assertThat(in.earlier())
                .containsExactly(new Message("user", "hi"), new Message("assistant", "hello"));
        assertThat(in.secrets().isEmpty()).isTrue();
    }

    @Test
    void secretsComeFromForwardedPropsAndNeverShowInToString() {
        RunAgentInput in =
                parse(
                        "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                                + "\"forwardedProps\":{\"agentbox\":{\"secrets\":{\"API_KEY\":\"s3cret\"}}}}");

        assertThat(in.secrets().plain()).isEqualTo(Map.of("API_KEY", "s3cret"));
        assertThat(in.userMessageId()).isEqualTo("r-user");
        assertThat(in.toString()).doesNotContain("s3cret");
    }

    @Test
    void anInputThatIsNotARunAgentInputIsRefusedNamingTheField() {
        String msgs = "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]";
        assertThat(fieldOf("[]")).isEqualTo("body");
        assertThat(fieldOf("{\"runId\":\"r\"," + msgs + "}")).isEqualTo("threadId");
        assertThat(fieldOf("{\"threadId\":\"t\",\"runId\":\"\"," + msgs + "}")).isEqualTo("runId");
        assertThat(fieldOf("{\"threadId\":\"t\\n\",\"runId\":\"r\"," + msgs + "}"))
                .isEqualTo("threadId");
        assertThat(fieldOf("{\"threadId\":\"t\",\"runId\":\"r\"}")).isEqualTo("messages");
        assertThat(fieldOf("{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[]}"))
                .isEqualTo("messages");
        assertThat(
                        fieldOf(
                                "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"},"
                                        + "{\"role\":\"user\",\"content\":\"y\"},{\"role\":\"user\",\"content\":\"z\"},{\"content\":\"w\"}]}"))
                .isEqualTo("messages[3].role");
        assertThat(
                        fieldOf(
                                "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"role\":\"user\",\"content\":7}]}"))
                .isEqualTo("messages[0].content");
        assertThat(
                        fieldOf(
                                "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"role\":\"user\",\"content\":\"\"}]}"))
                .isEqualTo("messages[0].content");
        assertThat(
                        fieldOf(
                                "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"role\":\"assistant\",\"content\":\"x\"}]}"))
                .isEqualTo("messages");
        assertThat(
                        fieldOf(
                                "{\"threadId\":\"t\",\"runId\":\"r\","
                                        + msgs
                                        + ",\"forwardedProps\":{\"agentbox\":{\"secrets\":\"s3cret\"}}}"))
                .isEqualTo("forwardedProps.agentbox.secrets");
        assertThat(
                        fieldOf(
                                "{\"threadId\":\"t\",\"runId\":\"r\","
                                        + msgs
                                        + ",\"forwardedProps\":{\"agentbox\":{\"secrets\":{\"K\":1}}}}"))
                .isEqualTo("forwardedProps.agentbox.secrets.K");
        assertThat(
                        fieldOf(
                                "{\"threadId\":\"t\",\"runId\":\"r\","
                                        + msgs
                                        + ",\"forwardedProps\":{\"agentbox\":{\"secrets\":{\"1X\":\"s3cret\"}}}}"))
                .isEqualTo("forwardedProps.agentbox.secrets");
    }

    @Test
    void earlierMessagesGoBeforeThePromptAsAShortTranscript() {
        assertThat(AgentPrompt.text(List.of(), "now")).isEqualTo("now");
        assertThat(
                        AgentPrompt.text(
                                List.of(new Message("user", "a"), new Message("assistant", "b")),
                                "now"))
                .isEqualTo("[Conversation so far]\nuser: a\nassistant: b\n[Current message]\nnow");
        String long_ = "x".repeat(AgentPrompt.MAX_MESSAGE_CHARS + 10);
        List<Message> many = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            many.add(new Message("user", i == 29 ? long_ : "m" + i));
        }
        String text = AgentPrompt.text(many, "now");
        assertThat(text).doesNotContain("user: m9\n").contains("user: m10\n");
        assertThat(text).doesNotContain(long_);
    }

    @Test
    void clientToolsResumeEntriesAndToolMessagesAreRead_AG15() {
        RunAgentInput in =
                parse(
                        "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":["
                                + "{\"role\":\"user\",\"content\":\"x\"},"
                                + "{\"id\":\"m\",\"role\":\"tool\",\"toolCallId\":\"c1\",\"content\":\"teal\"}],"
                                + "\"tools\":[{\"name\":\"pick_color\",\"description\":\"d\","
                                + "\"parameters\":{\"type\":\"object\"}}],"
                                + "\"resume\":[{\"interruptId\":\"i1\",\"status\":\"resolved\","
                                + "\"payload\":{\"approved\":true}}]}");

        assertThat(in.tools()).extracting(t -> t.name()).containsExactly("pick_color");
        assertThat(in.resume())
                .singleElement()
                .satisfies(r -> assertThat(r.interruptId()).isEqualTo("i1"));
        assertThat(in.toolResults()).isEqualTo(Map.of("c1", "teal"));
        assertThat(in.answers()).isTrue();
    }

    @Test
    void badClientToolsAndResumeEntriesAreRefusedNamingTheField() {
        String head =
                "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],";
        assertThat(fieldOf(head + "\"tools\":[{\"name\":\"bad name\"}]}")).isEqualTo("tools[0]");
        assertThat(fieldOf(head + "\"tools\":[{\"name\":\"approve\"}]}"))
                .isEqualTo("tools[0].name");
        assertThat(fieldOf(head + "\"tools\":[{\"name\":\"a\"},{\"name\":\"a\"}]}"))
                .isEqualTo("tools[1].name");
        assertThat(fieldOf(head + "\"tools\":[{\"name\":\"a\",\"parameters\":[]}]}"))
                .isEqualTo("tools[0]");
        assertThat(fieldOf(head + "\"resume\":[{\"status\":\"resolved\"}]}"))
                .isEqualTo("resume[0].interruptId");
        assertThat(fieldOf(head + "\"resume\":[{\"interruptId\":\"i\",\"status\":\"pending\"}]}"))
                .isEqualTo("resume[0].status");
    }
}
