package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.testing.NeedsDocker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The image's build of the helper (static, as {@code build.sh} makes it) running {@code serve-tcp}
 * inside the sandbox images as a pod runs it: its own user (1000), every capability dropped, a
 * read-only root, the key a read-only file. The container stands in for a pod, its published
 * loopback port for the pod's IP; the server's own client ({@link SandboxChannel} over {@link
 * TcpEndpoint}) reaches it with the key and is refused with another.
 *
 * <p>The binary is bind-mounted from this build, so the images need not be rebuilt for it.
 */
@NeedsDocker
class TcpSandboxdInContainerTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    @TempDir Path dir;

    private final ScheduledThreadPoolExecutor watchdog =
            new ScheduledThreadPoolExecutor(1, new DaemonThreads("test-watchdog"));
    private final ExecutorService readers =
            Executors.newCachedThreadPool(new DaemonThreads("test-readers"));
    private final String container = "agentbox-tcp-helper-test-" + UUID.randomUUID();

    @AfterEach
    void stop() throws Exception {
        docker("rm", "-f", container);
        watchdog.shutdownNow();
        readers.shutdownNow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"agentbox/sandbox:bookworm", "agentbox/sandbox:busybox"})
    void theHelperInASandboxImageServesTheKeyAndRefusesAnotherKey(String image) throws Exception {
        ChannelKey key = ChannelKey.generate(new SecureRandom());
        Path keyFile = dir.resolve("key");
        Files.write(keyFile, key.bytes());
        // Readable by the container's user, as the pod's fsGroup makes the Secret's file.
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("r--r--r--"));
        Path binary = HostSandboxd.binary(false);
        docker(
                "run",
                "-d",
                "--name",
                container,
                "--user",
                "1000:1000",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges",
                "--read-only",
                "-p",
                "127.0.0.1::7070",
                "-v",
                binary + ":/opt/agentbox/test/agentbox-sandboxd:ro",
                "-v",
                keyFile + ":/run/agentbox/channel/key:ro",
                "--entrypoint",
                "/opt/agentbox/test/agentbox-sandboxd",
                image,
                "serve-tcp",
                "7070",
                "/run/agentbox/channel/key");
        String published = docker("port", container, "7070/tcp").lines().findFirst().orElseThrow();
        int port = Integer.parseInt(published.substring(published.lastIndexOf(':') + 1).strip());
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);

        SandboxChannel ch =
                new SandboxChannel("pod", new TcpEndpoint(address, key), watchdog, readers);
        await().atMost(Duration.ofSeconds(20)).until(ch::answers);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<Integer> status = new CompletableFuture<>();
        ch.exec(
                List.of("sh", "-c", "id -u; echo $((6 * 7))"),
                List.of(),
                "/",
                false,
                new ChannelExec.Listener() {
                    @Override
                    public void stdout(byte[] bytes) {
                        synchronized (out) {
                            out.writeBytes(bytes);
                        }
                    }

                    @Override
                    public void stderr(byte[] bytes) {}

                    @Override
                    public void exited(int s) {
                        status.complete(s);
                    }

                    @Override
                    public void broken(String why) {
                        status.completeExceptionally(new IOException(why));
                    }
                });
        assertThat(status.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isZero();
        synchronized (out) {
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("1000\n42\n");
        }

        SandboxChannel stranger =
                new SandboxChannel(
                        "stranger",
                        new TcpEndpoint(address, ChannelKey.generate(new SecureRandom())),
                        watchdog,
                        readers);
        assertThatThrownBy(() -> stranger.stat("/", true, DEADLINE))
                .isInstanceOfSatisfying(
                        ChannelException.class, e -> assertThat(e.requestSent()).isFalse());
        assertThat(ch.stat("/", true, DEADLINE)).as("still serving the key's holder").isPresent();
    }

    /**
     * Runs {@code docker ARGS} and returns its stdout; a failure fails the test with its stderr.
     */
    private static String docker(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        CompletableFuture<String> err =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return new String(
                                        p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                            } catch (IOException e) {
                                return e.toString();
                            }
                        });
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("docker " + String.join(" ", args) + " did not end");
        }
        if (p.exitValue() != 0 && !args[0].equals("rm")) {
            throw new AssertionError("docker " + String.join(" ", args) + " failed: " + err.get());
        }
        return stdout;
    }
}
