package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.DaemonThreads;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's half of the TCP challenge-response against listeners of our own on loopback that do
 * not hold the sandbox's key — what a pod at a reused address would be. The helper's half is
 * checked against the real binary ({@link HostSandboxdTcpContract}).
 */
@Timeout(30)
class ChannelAuthTest {

    private static final Duration DEADLINE = Duration.ofSeconds(5);

    private final ScheduledThreadPoolExecutor watchdog =
            new ScheduledThreadPoolExecutor(1, new DaemonThreads("test-watchdog"));
    private final ExecutorService readers =
            Executors.newCachedThreadPool(new DaemonThreads("test-readers"));
    private final ChannelKey key = ChannelKey.generate(new SecureRandom());
    private ServerSocketChannel server;

    @BeforeEach
    void listen() throws IOException {
        server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        watchdog.shutdownNow();
        readers.shutdownNow();
    }

    private SandboxChannel client() throws IOException {
        return new SandboxChannel(
                "test",
                new TcpEndpoint((InetSocketAddress) server.getLocalAddress(), key),
                watchdog,
                readers);
    }

    /** Runs {@code script} on the first connection; completes with every byte the client sent. */
    private CompletableFuture<Integer> accept(Script script) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try (SocketChannel c = server.accept()) {
                        script.run(c);
                        int total = 0;
                        ByteBuffer b = ByteBuffer.allocate(4096);
                        for (int n; (n = c.read(b)) >= 0; b.clear()) {
                            total += n;
                        }
                        return total;
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                },
                readers);
    }

    private interface Script {
        void run(SocketChannel c) throws IOException;
    }

    private static void write(SocketChannel c, ByteBuffer b) throws IOException {
        b.flip();
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    private static void assertRefusedBeforeTheRequest(SandboxChannel ch) {
        assertThatThrownBy(() -> ch.stat("/", true, DEADLINE))
                .isInstanceOfSatisfying(
                        ChannelException.class, e -> assertThat(e.requestSent()).isFalse());
    }

    @Test
    void aListenerWithoutTheKeyGetsTheAnswerAndNothingMore() throws Exception {
        CompletableFuture<Integer> received =
                accept(
                        c -> {
                            write(
                                    c,
                                    ByteBuffer.allocate(37)
                                            .put((byte) 'N')
                                            .putInt(32)
                                            .put(new byte[32]));
                            ByteBuffer answer = ByteBuffer.allocate(69);
                            while (answer.hasRemaining() && c.read(answer) >= 0) {}
                            // A proof it cannot compute without the key.
                            write(
                                    c,
                                    ByteBuffer.allocate(37)
                                            .put((byte) 'A')
                                            .putInt(32)
                                            .put(new byte[32]));
                        });
        SandboxChannel ch = client();
        assertRefusedBeforeTheRequest(ch);
        // Nothing after the answer: no hello, no request (the client closed instead).
        assertThat(received.get(10, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void aChallengeOfAnotherShapeIsRefusedUnread() throws Exception {
        CompletableFuture<Integer> received =
                accept(
                        c ->
                                write(
                                        c,
                                        ByteBuffer.allocate(5)
                                                .put((byte) 'N')
                                                .putInt(Integer.MAX_VALUE)));
        assertRefusedBeforeTheRequest(client());
        assertThat(received.get(10, TimeUnit.SECONDS)).as("bytes sent after it").isZero();
    }

    @Test
    void aListenerThatSendsNoChallengeIsLeftAtTheHandshakeDeadline() throws Exception {
        CompletableFuture<Integer> received = accept(c -> {});
        long start = System.nanoTime();
        assertRefusedBeforeTheRequest(client());
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(SandboxChannel.HANDSHAKE)
                .isLessThan(SandboxChannel.HANDSHAKE.plusSeconds(3));
        assertThat(received.get(10, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void theKeyNeverAppearsInWhatIsPrinted() throws IOException {
        TcpEndpoint e = new TcpEndpoint((InetSocketAddress) server.getLocalAddress(), key);
        String hex = java.util.HexFormat.of().formatHex(key.bytes());
        assertThat(e.toString()).doesNotContain(hex).startsWith("tcp://");
        assertThat(key.toString()).isEqualTo("ChannelKey[32 bytes]");
    }
}
