package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessImages;
import dev.agentbox.sandbox.SandboxKey;
import dev.agentbox.sandbox.SandboxSpec;
import dev.agentbox.sandbox.SandboxSpecParser;
import jakarta.json.Json;
import java.io.StringReader;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunRequestHarnessImageTest {

    private static final SandboxSpecParser PARSER = new SandboxSpecParser(1_800_000, false);

    private static RunRequest request(String harness, String sandbox) {
        String body =
                "{\"runId\":\"r\",\"threadId\":\"t\",\"harness\":\""
                        + harness
                        + "\","
                        + (harness.equals("command") ? "\"command\":\"true\"" : "\"prompt\":\"hi\"")
                        + ",\"sandbox\":"
                        + sandbox
                        + "}";
        return RunRequest.parse(Json.createReader(new StringReader(body)).read(), PARSER);
    }

    private static Optional<String> image(RunRequest r) {
        return r.withHarnessImage(HarnessImages.defaults(), PARSER)
                .sandboxSpec()
                .orElseThrow()
                .image();
    }

    @Test
    void claudeCodeAndCodexSandboxesDefaultToTheAgentsImage() {
        assertThat(image(request("claude-code", "{}"))).contains("agentbox/sandbox:agents");
        assertThat(image(request("codex", "{}"))).contains("agentbox/sandbox:agents");
    }

    @Test
    void anImageNamedInTheRequestWins() {
        assertThat(image(request("claude-code", "{\"image\":\"agentbox/sandbox:busybox\"}")))
                .contains("agentbox/sandbox:busybox");
    }

    @Test
    void theCommandHarnessKeepsTheProviderDefault() {
        assertThat(image(request("command", "{}"))).isEmpty();
    }

    @Test
    void anotherProviderThanDockerGetsNoImage() {
        assertThat(image(request("claude-code", "{\"provider\":\"local\"}"))).isEmpty();
    }

    @Test
    void aSandboxKeyIsLeftAlone() {
        RunRequest r = request("claude-code", "{\"key\":\"k\"}");
        assertThat(r.withHarnessImage(HarnessImages.defaults(), PARSER)).isSameAs(r);
    }

    @Test
    void theDefaultImageIsPartOfTheSandboxKey() {
        SandboxSpec claude =
                request("claude-code", "{\"definitionId\":\"d\"}")
                        .withHarnessImage(HarnessImages.defaults(), PARSER)
                        .sandboxSpec()
                        .orElseThrow();
        SandboxSpec command =
                request("command", "{\"definitionId\":\"d\"}")
                        .withHarnessImage(HarnessImages.defaults(), PARSER)
                        .sandboxSpec()
                        .orElseThrow();
        assertThat(SandboxKey.of("t", claude, claude.image().orElse("default")))
                .isNotEqualTo(SandboxKey.of("t", command, command.image().orElse("default")));
    }

    @Test
    void aConfiguredImageOffTheAllowlistIsRefusedNamingItsKey() {
        HarnessImages off = new HarnessImages(Map.of(Harness.CODEX, "agentbox/elsewhere:1"));
        RunRequest r = request("codex", "{}");
        assertThatThrownBy(() -> r.withHarnessImage(off, PARSER))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.IMAGE_NOT_ALLOWED);
                            assertThat(e.detail()).contains("agentbox.harness.codex.image");
                            assertThat(e.extensions()).containsEntry("field", "sandbox.image");
                        });
        assertThat(image(request("claude-code", "{}"))).isPresent();
    }
}
