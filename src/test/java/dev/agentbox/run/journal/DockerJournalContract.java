package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.run.journal.JournalReaderOptions.Mode;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
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
                DockerSettings.builder().image(image()).build(),
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

    /**
     * Kills every process of the sandbox's channel helper but its supervisor (the oldest; the init
     * process names the helper too, but not first), through the engine: the server restarts, every
     * open connection — the journal's follow among them — breaks.
     */
    private static void killChannelHelper(String container) throws Exception {
        String script =
                "s=''; for d in /proc/[0-9]*; do c=$(tr '\\0' ' ' < $d/cmdline 2>/dev/null); "
                        + "case \"$c\" in /opt/agentbox/bin/agentbox-sandboxd\\ serve*) s=\"$s ${d#/proc/}\";; esac; done; "
                        + "set -- $(for p in $s; do echo $p; done | sort -n); [ $# -ge 2 ] || exit 9; shift; kill -KILL \"$@\"";
        try (DockerClient docker = dockerClient()) {
            String exec =
                    docker.execCreateCmd(container)
                            .withCmd("sh", "-c", script)
                            .withAttachStdout(true)
                            .withAttachStderr(true)
                            .exec()
                            .getId();
            docker.execStartCmd(exec)
                    .exec(new com.github.dockerjava.api.async.ResultCallback.Adapter<>())
                    .awaitCompletion();
            assertThat(docker.inspectExecCmd(exec).exec().getExitCodeLong())
                    .as("helper processes found and killed")
                    .isZero();
        }
    }

    @Test
    @DisplayName(
            "JN-14 the sandbox channel's helper killed mid-follow: every line still arrives exactly once, in order, up to the sentinel")
    void followSurvivesAHelperRestart_JN14() throws Exception {
        SandboxHandle victim = provider.create(baseInput());
        extra.add(victim);
        String runId = newRunId("jn11");
        launcher.start(
                victim,
                id(runId),
                "i=0; while [ $i -lt 40 ]; do i=$((i+1)); echo line$i; sleep 0.05; done");
        List<String> seen = new ArrayList<>();
        try (JournalReader reader =
                JournalReader.open(victim, id(runId), 0, options(Mode.FOLLOW))) {
            readSome(reader, Duration.ofSeconds(10)).forEach(l -> seen.add(l.text()));
            killChannelHelper(victim.id());
            Outcome rest = readToEnd(reader, Duration.ofSeconds(30));
            seen.addAll(rest.texts());
            assertThat(rest.exitCode()).hasValue(0);
        } finally {
            victim.destroy();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            expected.add("line" + i);
        }
        assertThat(seen).containsExactlyElementsOf(expected);
    }
}
