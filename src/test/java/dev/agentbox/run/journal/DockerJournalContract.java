package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.agentbox.run.journal.JournalReaderOptions.Mode;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.DaemonThreads;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.testing.NeedsDocker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The journal suite on Docker (journals in the standard directory), plus a container killed
 * mid-read.
 */
@NeedsDocker
abstract class DockerJournalContract extends JournalReaderContract {

    protected abstract String image();

    @Override
    protected SandboxProvider newProvider() {
        return new DockerSandboxProvider(
                DockerSettings.defaults().withImage(image()),
                new DaemonThreads("test-journal"),
                Clock.systemUTC());
    }

    @Test
    @DisplayName("a container keeps its journals in the standard directory, /tmp/agentbox-runs")
    void aContainersJournalsAreInTheStandardDirectory() {
        assertThat(sb.journalDirectory()).isEqualTo("/tmp/agentbox-runs");
    }

    /** Runs after the sandboxes are gone (a subclass's own @AfterAll would run before them). */
    @Override
    protected void cleanupExtras() {
        ((DockerSandboxProvider) provider).close();
    }

    /** A client of our own: the provider's engine is package-private. */
    private static DockerClient dockerClient() {
        DockerClientConfig cfg =
                DefaultDockerClientConfig.createDefaultConfigBuilder()
                        .withDockerHost(DockerSettings.defaults().host())
                        .build();
        return DockerClientImpl.getInstance(
                cfg, new ApacheDockerHttpClient.Builder().dockerHost(cfg.getDockerHost()).build());
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-10 docker kill of the sandbox mid-read: 'ended without an exit sentinel' within seconds, never a hang")
    void containerKilledMidRead_JN10(Mode mode) throws Exception {
        SandboxHandle victim = provider.create(baseInput());
        extra.add(victim);
        String runId = newRunId("jn10docker");
        launcher.start(victim, id(runId), "echo one; sleep 60; echo never");
        try (JournalReader reader = JournalReader.open(victim, id(runId), 0, options(mode))) {
            assertThat(readSome(reader, Duration.ofSeconds(10)))
                    .extracting(JournalLine::text)
                    .containsExactly("one");
            try (DockerClient docker = dockerClient()) {
                docker.killContainerCmd(victim.id()).exec();
            }
            long t0 = System.nanoTime();
            List<String> after = new ArrayList<>();
            assertThatThrownBy(
                            () -> {
                                while (true) {
                                    reader.poll(Duration.ofMillis(300))
                                            .lines()
                                            .forEach(l -> after.add(l.text()));
                                }
                            })
                    .isInstanceOf(JournalEndedWithoutSentinelException.class)
                    .hasMessageContaining("ended without an exit sentinel");
            assertThat(after).isEmpty();
            assertThat(reader.position()).isEqualTo(4);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        } finally {
            victim.destroy();
        }
    }
}
