package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.DaemonThreads;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The channel client against helpers of our own on a real Unix socket: what it does with wrong,
 * oversized, silent or missing answers, and how it keeps a spare connection (docs/behavior.md
 * SC-10, SC-12). The real helper is exercised by the Docker suites.
 */
class SandboxChannelTest {

    @TempDir Path dir;

    private final ScheduledThreadPoolExecutor watchdog =
            new ScheduledThreadPoolExecutor(1, new DaemonThreads("test-watchdog"));
    private final ExecutorService readers =
            Executors.newCachedThreadPool(new DaemonThreads("test-readers"));
    private ServerSocketChannel server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
        watchdog.shutdownNow();
        readers.shutdownNow();
    }

    /** Serves every connection with {@code script} on a thread of its own. */
    private SandboxChannel helper(Consumer<SocketChannel> script) throws IOException {
        Path socket = dir.resolve("sandboxd.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread t =
                new Thread(
                        () -> {
                            while (server.isOpen()) {
                                try {
                                    SocketChannel c = server.accept();
                                    readers.execute(
                                            () -> {
                                                try (c) {
                                                    script.accept(c);
                                                } catch (IOException e) {
                                                    // the client went away
                                                }
                                            });
                                } catch (IOException e) {
                                    return;
                                }
                            }
                        });
        t.setDaemon(true);
        t.start();
        return new SandboxChannel("test", socket, watchdog, readers);
    }

    private static void frame(SocketChannel c, char type, byte[] payload) {
        try {
            ByteBuffer b = ByteBuffer.allocate(5 + payload.length);
            b.put((byte) type).putInt(payload.length).put(payload).flip();
            while (b.hasRemaining()) {
                c.write(b);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void readSome(SocketChannel c) {
        try {
            c.read(ByteBuffer.allocate(65536));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void hello(SocketChannel c) {
        readSome(c);
        frame(c, 'H', ChannelProtocol.VERSION.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName(
            "a helper of another version is refused before any request is sent, and backed off")
    void anotherVersionIsRefusedBeforeTheRequest() throws Exception {
        SandboxChannel ch =
                helper(
                        c -> {
                            readSome(c);
                            frame(c, 'H', "agentbox-sandboxd/9".getBytes(StandardCharsets.UTF_8));
                        });
        assertThat(ch.usable()).isTrue();
        assertThatThrownBy(() -> ch.mkdir("/x", Duration.ofSeconds(2)))
                .isInstanceOfSatisfying(
                        ChannelException.class, e -> assertThat(e.requestSent()).isFalse());
        assertThat(ch.usable()).as("backing off").isFalse();
    }

    @Test
    @DisplayName(
            "a frame over 1 MiB is a protocol error: the request fails and the channel backs off")
    void anOversizedFrameIsRefused() throws Exception {
        SandboxChannel ch =
                helper(
                        c -> {
                            hello(c);
                            readSome(c);
                            try {
                                c.write(
                                        ByteBuffer.allocate(5)
                                                .put((byte) 'T')
                                                .putInt(ChannelProtocol.MAX_PAYLOAD + 1)
                                                .flip());
                                Thread.sleep(500);
                            } catch (IOException | InterruptedException e) {
                                // done
                            }
                        });
        assertThatThrownBy(() -> ch.stat("/x", true, Duration.ofSeconds(2)))
                .isInstanceOfSatisfying(
                        ChannelException.class,
                        e -> {
                            assertThat(e.requestSent()).isTrue();
                            assertThat(e.getMessage()).contains("over the limit");
                        });
        assertThat(ch.usable()).isFalse();
    }

    @Test
    @DisplayName("an unknown frame type is a protocol error too")
    void anUnknownFrameTypeIsRefused() throws Exception {
        SandboxChannel ch =
                helper(
                        c -> {
                            hello(c);
                            readSome(c);
                            frame(c, 'Q', new byte[0]);
                        });
        assertThatThrownBy(() -> ch.stat("/x", true, Duration.ofSeconds(2)))
                .isInstanceOf(ChannelException.class)
                .hasMessageContaining("unknown frame type");
    }

    @Test
    @DisplayName("a helper that never answers costs the deadline, not a hang")
    void aSilentHelperCostsTheDeadline() throws Exception {
        SandboxChannel ch =
                helper(
                        c -> {
                            hello(c);
                            readSome(c);
                            try {
                                Thread.sleep(10_000);
                            } catch (InterruptedException e) {
                                // done
                            }
                        });
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> ch.list("/", 1000, Duration.ofMillis(300)))
                .isInstanceOf(ChannelException.class)
                .hasMessageContaining("did not answer within 300 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("a refusal is the helper's code and words, not a channel failure")
    void aRefusalKeepsItsCode() throws Exception {
        SandboxChannel ch =
                helper(
                        c -> {
                            hello(c);
                            readSome(c);
                            frame(
                                    c,
                                    'F',
                                    "ENOTDIR\0Not a directory".getBytes(StandardCharsets.UTF_8));
                        });
        assertThatThrownBy(() -> ch.mkdir("/f/x", Duration.ofSeconds(2)))
                .isInstanceOfSatisfying(
                        ChannelRefusal.class,
                        r -> {
                            assertThat(r.code()).isEqualTo("ENOTDIR");
                            assertThat(r.detail()).isEqualTo("Not a directory");
                        });
        assertThat(ch.usable()).as("a refusal is no reason to back off").isTrue();
    }

    @Test
    @DisplayName(
            "a request after the first goes out on a spare connection whose hello was exchanged before the request began")
    void theNextRequestUsesASpareHandshakenAhead() throws Exception {
        List<Long> helloAt = new CopyOnWriteArrayList<>();
        List<Long> requestOn = new CopyOnWriteArrayList<>();
        SandboxChannel ch =
                helper(
                        c -> {
                            readSome(c);
                            int n;
                            synchronized (helloAt) {
                                n = helloAt.size();
                                helloAt.add(System.nanoTime()); // before the client can see it
                            }
                            frame(c, 'H', ChannelProtocol.VERSION.getBytes(StandardCharsets.UTF_8));
                            readSome(c);
                            requestOn.add((long) n);
                            frame(c, 'C', new byte[0]);
                        });
        ch.mkdir("/a", Duration.ofSeconds(2));
        await().atMost(Duration.ofSeconds(5)).until(ch::hasSpare);
        long began = System.nanoTime();
        ch.mkdir("/b", Duration.ofSeconds(2));
        assertThat(requestOn).hasSize(2);
        long served = requestOn.get(1);
        assertThat(served).as("the second request's connection").isEqualTo(1);
        assertThat(helloAt.get((int) served)).isLessThan(began);
        assertThat(ch.usable()).isTrue();
    }

    @Test
    @DisplayName(
            "the next spare is connected only once the request's connection has closed, never while the request runs")
    void theSpareIsMadeAfterTheRequestNotDuringIt() throws Exception {
        java.util.concurrent.atomic.AtomicInteger connections =
                new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger seenWhileAnswering =
                new java.util.concurrent.atomic.AtomicInteger(-1);
        SandboxChannel ch =
                helper(
                        c -> {
                            int n = connections.incrementAndGet();
                            hello(c);
                            readSome(c);
                            if (n == 1) {
                                try {
                                    Thread.sleep(300); // the command runs
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                                seenWhileAnswering.set(connections.get());
                            }
                            frame(c, 'C', new byte[0]);
                        });
        ch.mkdir("/a", Duration.ofSeconds(2));
        assertThat(seenWhileAnswering.get())
                .as("connections while the first request ran")
                .isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(ch::hasSpare);
        assertThat(connections.get()).isEqualTo(2);
    }

    @Test
    @DisplayName(
            "a spare whose helper went away is dropped quietly: the request connects anew and the channel stays usable")
    void aDeadSpareIsNotUsed() throws Exception {
        java.util.concurrent.atomic.AtomicInteger connections =
                new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch spareClosed =
                new java.util.concurrent.CountDownLatch(1);
        SandboxChannel ch =
                helper(
                        c -> {
                            int n = connections.incrementAndGet();
                            hello(c);
                            if (n == 2) {
                                try {
                                    c.close(); // the spare's handler dies
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                                spareClosed.countDown();
                                return;
                            }
                            readSome(c);
                            frame(c, 'C', new byte[0]);
                        });
        ch.mkdir("/a", Duration.ofSeconds(2));
        await().atMost(Duration.ofSeconds(5)).until(ch::hasSpare);
        assertThat(spareClosed.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        ch.mkdir("/b", Duration.ofSeconds(2));
        assertThat(connections.get())
                .as("first, dead spare, new one (+ its refill)")
                .isGreaterThanOrEqualTo(3);
        assertThat(ch.usable()).as("a dead spare is no failure of the channel").isTrue();
    }

    @Test
    @DisplayName("no socket, or a link where the socket should be: not usable, nothing connected")
    void aMissingSocketOrALinkIsNotUsable() throws Exception {
        SandboxChannel none =
                new SandboxChannel("none", dir.resolve("absent.sock"), watchdog, readers);
        assertThat(none.usable()).isFalse();
        Path link = dir.resolve("link.sock");
        Files.createSymbolicLink(link, dir.resolve("elsewhere.sock"));
        assertThat(new SandboxChannel("link", link, watchdog, readers).usable()).isFalse();
    }

    @Test
    @DisplayName("a request field holding NUL is refused before anything is sent")
    void aFieldWithNulIsRefused() {
        assertThatThrownBy(() -> ChannelProtocol.fields(List.of("a\0b")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
