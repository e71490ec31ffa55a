package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.SandboxSecrets;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The reaper finalizes a detached run on a server that never saw the sandbox's ensure: the secrets
 * it must mask come from the sandbox's own secrets file. Real parts: Derby, a BusyBox container,
 * the reaper's sweep.
 */
class ReaperFinalizeRedactionTest extends ReaperDatabaseTest {

    @Test
    @DisplayName(
            "an agent that printed its secret on stderr, finalized by the reaper: neither the error nor the log holds the value")
    void aFailedRunFinalizedByTheReaperHasItsSecretMaskedInTheErrorAndTheLog() {
        Box box = f.sandbox();
        String secret = "s3cr3t-" + UUID.randomUUID();
        String base64 =
                Base64.getEncoder()
                        .encodeToString((secret + "\n").getBytes(StandardCharsets.UTF_8));
        SandboxSecrets.install(box.handle(), Map.of("API_KEY", secret));
        String q = ShellQuote.single(secret);
        RunRecordView run =
                f.detach(
                        f.run(box, "echo " + q + " >&2; echo " + q + " | base64 >&2; exit 3"),
                        f.clock.instant());
        f.awaitExit(box, run);

        SweepResult result = f.reaper(f.settings()).sweep();

        assertThat(result.runs())
                .anySatisfy(
                        e -> {
                            assertThat(e.runId()).isEqualTo(run.runId());
                            assertThat(e.outcome()).isEqualTo(SweepOutcome.FINALIZED);
                        });
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("failed");
        String message = after.error().orElseThrow().message();
        assertThat(message)
                .contains("***")
                .doesNotContain(secret)
                .doesNotContain(base64.substring(0, 40));
        assertThat(f.chunkJson(run))
                .isNotEmpty()
                .allSatisfy(
                        chunk ->
                                assertThat(chunk)
                                        .doesNotContain(secret)
                                        .doesNotContain(base64.substring(0, 40)));
        assertThat(f.chunkJson(run))
                .anySatisfy(chunk -> assertThat(chunk).contains("RUN_ERROR").contains("***"));
    }
}
