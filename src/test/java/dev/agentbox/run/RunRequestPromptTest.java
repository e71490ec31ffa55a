package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.sandbox.SandboxSpecParser;
import jakarta.json.Json;
import java.io.StringReader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunRequestPromptTest {

    private static RunRequest parse(String body) {
        return RunRequest.parse(
                Json.createReader(new StringReader(body)).read(),
                new SandboxSpecParser(1_800_000, false));
    }

    @Test
    void aCommandRunWithAPromptReadsItOnStdin() {
        assertThat(
                        parse(
                                        "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},"
                                                + "\"command\":\"cat\",\"prompt\":\"hi $(x)\"}")
                                .agentInvocation())
                .isEqualTo(new AgentInvocation("cat", Optional.of("hi $(x)")));
    }

    @Test
    void aCommandRunWithoutAPromptHasNoStdin() {
        assertThat(
                        parse(
                                        "{\"runId\":\"r\",\"threadId\":\"t\",\"sandbox\":{\"key\":\"k\"},"
                                                + "\"command\":\"cat\"}")
                                .agentInvocation())
                .isEqualTo(AgentInvocation.of("cat"));
    }
}
