package dev.agentbox.sandbox.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.FileTooLargeException;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLimits;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The local provider keeps the same output, deadline and read bounds as the Docker one. */
@Timeout(60)
class LocalLimitsTest {

    private LocalSandboxProvider provider;
    private SandboxHandle sb;

    @BeforeEach
    void create() throws Exception {
        Path root = Files.createTempDirectory("agentbox-local-limits");
        provider =
                new LocalSandboxProvider(
                        new LocalSettings(true, root),
                        SandboxLimits.defaults()
                                .withMaxOutputBytes(64 * 1024)
                                .withMaxReadBytes(1000),
                        new DaemonThreads("test-local-limits"),
                        Clock.systemUTC());
        sb = provider.create(SandboxCreateInput.defaults());
    }

    @AfterEach
    void destroy() {
        sb.destroy();
    }

    @Test
    void yesIsCutAtTheCapKilledAndMarkedTruncated() {
        long start = System.nanoTime();
        ExecResult r = sb.process().exec("yes flood");
        assertThat(r.truncated()).isTrue();
        assertThat(r.stdout().length() + r.stderr().length()).isLessThanOrEqualTo(64 * 1024);
        assertThat(r.stdout()).startsWith("flood\nflood\n");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void anOrdinaryExecIsNotTruncated() {
        assertThat(sb.process().exec("echo ok").truncated()).isFalse();
    }

    @Test
    void aTimeoutKillsTheCommandAndAnswersOnTime() {
        long start = System.nanoTime();
        ExecResult r =
                sb.process()
                        .exec(
                                "sleep 30",
                                ProcessOptions.defaults().withTimeout(Duration.ofMillis(500)));
        assertThat(r.exitCode()).isEqualTo(ExecResult.TIMED_OUT);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void fifosAndFilesOverTheLimitAreRefusedAndSmallFilesReadExactly() throws Exception {
        sb.process().exec("mkfifo pipe && head -c 1001 /dev/zero > big && printf 'abc' > small");
        assertThatThrownBy(() -> sb.fs().openRead("pipe", 1000))
                .isInstanceOfSatisfying(
                        FileTooLargeException.class, e -> assertThat(e.status()).isEqualTo(413));
        assertThatThrownBy(() -> sb.fs().readBytes("big"))
                .isInstanceOfSatisfying(
                        FileTooLargeException.class,
                        e -> assertThat(e.detail()).contains("1001").contains("1000"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        sb.fs().openRead("small", 1000).transferTo(out);
        assertThat(out.toString()).isEqualTo("abc");
    }
}
