package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * JN-11 through the HTTP API: silence is no stall for an agent that started, and an agent that
 * cannot start still fails at once. On Derby only: nothing here touches SQL a second database would
 * check.
 */
class QuietAgentsIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    private String sandboxRef() {
        JsonObject s = sandboxes.ensure("{\"definitionId\":\"quiet-" + UUID.randomUUID() + "\"}");
        return "{\"key\":\"" + s.getString("key") + "\"}";
    }

    @Test
    void anAgentSilentForThirtySecondsBeforeItsFirstLineCompletes_JN11() {
        String runId = "r-quiet-" + UUID.randomUUID();
        runs.start(Runs.runBody(runId, sandboxRef(), "sleep 30; echo '{\"delta\":\"done\"}'", ""));
        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events).isNotEmpty();
        assertThat(events.get(events.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(events).anySatisfy(e -> assertThat(e.data()).contains("done"));
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
    }

    @Test
    void anAgentWhoseBinaryIsMissingFailsFastWithItsExitCode_JN11() {
        String runId = "r-missing-" + UUID.randomUUID();
        long t0 = System.nanoTime();
        runs.start(Runs.runBody(runId, sandboxRef(), "no-such-agent-binary --json", ""));
        List<SseClient.Event> events = runs.transcript(runId, null);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(events.get(events.size() - 1).name()).isEqualTo("RUN_ERROR");
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("failed");
        assertThat(record.getJsonObject("error").getString("code")).isEqualTo("agent-exit");
        assertThat(record.getJsonObject("error").getString("message"))
                .contains("code 127")
                .contains("no-such-agent-binary");
        // well inside the first-byte bound (10 s): the shell's exit, not a timeout, ended it
        assertThat(took).isLessThan(Duration.ofSeconds(8));
    }
}
