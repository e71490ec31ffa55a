package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.SandboxSpec.NoSource;
import dev.agentbox.sandbox.SandboxSpec.SetupStep;
import dev.agentbox.sandbox.SandboxSpec.Workspace;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.testing.NeedsDocker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bootstrap shell against a container that dies under it (BusyBox image): the ensure fails
 * within a bound instead of waiting for the step timeout.
 */
@NeedsDocker
class WorkspaceBootstrapKilledDockerTest {

    private final DockerSandboxProvider provider =
            new DockerSandboxProvider(
                    DockerSettings.builder().image("agentbox/sandbox:busybox").build(),
                    new DaemonThreads("test-bootstrap-killed"),
                    Clock.systemUTC());
    private final ExecutorService parallel = Executors.newCachedThreadPool();
    private final ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor();
    private SandboxHandle sb;

    @AfterEach
    void cleanUp() {
        killer.shutdownNow();
        parallel.shutdownNow();
        if (sb != null) {
            try {
                provider.destroy(sb.id());
            } catch (RuntimeException ignored) {
                // already gone: the test removed it
            }
        }
    }

    /** SH-06: the container removed mid-step fails the setup well within the step timeout. */
    @Test
    void aContainerKilledMidStepFailsTheSetupWithinABound() {
        String key = "boot-kill-" + UUID.randomUUID().toString().substring(0, 8);
        sb = provider.create(SandboxCreateInput.defaults().withKey(key, "tenant-bootstrap"));
        SandboxHandle handle = sb;
        killer.schedule(() -> provider.destroy(handle.id()), 2, TimeUnit.SECONDS);
        Duration stepTimeout = Duration.ofSeconds(120);

        long t0 = System.nanoTime();
        Throwable failure =
                catchThrowable(
                        () ->
                                new WorkspaceBootstrap(handle, stepTimeout, parallel, "test " + key)
                                        .run(
                                                new Workspace(
                                                        new NoSource(),
                                                        List.of(
                                                                new SetupStep(
                                                                        List.of("sleep 600"),
                                                                        false)),
                                                        Map.of(),
                                                        Map.of())));
        long ms = (System.nanoTime() - t0) / 1_000_000;

        assertThat(failure).as("the setup failed").isInstanceOf(RuntimeException.class);
        assertThat(ms).as("ms until it failed").isGreaterThanOrEqualTo(1_500).isLessThan(30_000);
    }
}
