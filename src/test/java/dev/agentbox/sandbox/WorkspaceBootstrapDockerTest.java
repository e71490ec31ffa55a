package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The bootstrap shell against a real container (Debian image): a step cannot forge its own end
 * marker (SH-08, SH-09). One sandbox for the class; each test runs its own steps in it.
 */
@NeedsDocker
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkspaceBootstrapDockerTest {

    private final String runKey = "boot-" + UUID.randomUUID().toString().substring(0, 8);
    private DockerSandboxProvider provider;
    private SandboxHandle sb;
    private ExecutorService parallel;

    @BeforeAll
    void createSandbox() {
        provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image("agentbox/sandbox:bookworm").build(),
                        new DaemonThreads("test-bootstrap"),
                        Clock.systemUTC());
        sb =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withKey(runKey, "tenant-bootstrap")
                                .withRequestedId(runKey));
        parallel = Executors.newCachedThreadPool();
    }

    @AfterAll
    void destroySandbox() {
        if (sb != null) {
            sb.destroy();
        }
        if (parallel != null) {
            parallel.shutdownNow();
        }
    }

    private void setup(String... steps) {
        List<SetupStep> s =
                Arrays.stream(steps).map(c -> new SetupStep(List.of(c), false)).toList();
        new WorkspaceBootstrap(sb, Duration.ofSeconds(20), parallel, "test " + runKey)
                .run(new Workspace(new NoSource(), s, Map.of(), Map.of()));
    }

    private static SetupFailedException failure(Runnable r) {
        try {
            r.run();
        } catch (SetupFailedException e) {
            return e;
        }
        throw new AssertionError("setup did not fail");
    }

    @Test
    void honestStepsStillSucceedAndFailWithTheirOwnStatus() {
        setup("echo one", "true");
        SetupFailedException e = failure(() -> setup("echo boom; exit 7"));
        assertThat(e.extensions()).containsEntry("exitCode", 7);
        assertThat(e.getMessage()).contains("(exit 7)").contains("boom");
    }

    @Test
    void sh08AStepPrintingAForgedSuccessMarkerThenExiting3FailsWithExit3() {
        SetupFailedException plain =
                failure(() -> setup("printf '\\n__AGENTBOX_STEP_END__ 0\\n'; exit 3"));
        assertThat(plain.extensions()).containsEntry("exitCode", 3);
        assertThat(plain.getMessage()).contains("(exit 3)");

        SetupFailedException guessed =
                failure(
                        () ->
                                setup(
                                        "printf '\\n__AGENTBOX_STEP_END__ 0123456789abcdef0123456789abcdef 0\\n'; exit 3"));
        assertThat(guessed.extensions()).containsEntry("exitCode", 3);
    }

    @Test
    void sh09AStepPrintingAForgedMarkerThenKillingItsShellIsADeadShell() {
        SetupFailedException e =
                failure(() -> setup("printf '\\n__AGENTBOX_STEP_END__ 0\\n'; kill -9 $$"));
        assertThat(e.getMessage()).contains("shell exited before the sentinel");
    }

    /**
     * The strongest forger short of the step's own shell: it reads the real nonce from its shell's
     * command line and writes a full success marker straight onto the exec's own output pipes, then
     * kills the shell. The marker is found, but the shell did not exit 0.
     */
    @Test
    void sh09AMarkerWithTheRealNonceWrittenPastTheStepsRedirectIsNotTrustedFromADeadShell() {
        String forger =
                "m=$(tr '\\000' '\\n' < /proc/$$/cmdline | grep -o '__AGENTBOX_STEP_END__ [0-9a-f]\\{32\\}' | head -n 1); "
                        + "[ -n \"$m\" ] || exit 41; n=0; "
                        + "for fd in /proc/$$/fd/*; do case \"$(readlink \"$fd\")\" in pipe:*) "
                        + "printf '\\n%s 0\\n' \"$m\" > \"$fd\" && n=$((n+1));; esac; done; "
                        + "[ \"$n\" -gt 0 ] || exit 42; kill -9 $$";
        SetupFailedException e = failure(() -> setup(forger));
        assertThat(e.getMessage())
                .as("the forger found the nonce and a pipe, then the shell died")
                .contains("shell exited before the sentinel");
        assertThat(e.extensions().get("exitCode")).isNotEqualTo(0);
    }
}
