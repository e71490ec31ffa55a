package dev.agentbox.sandbox.channel;

import static dev.agentbox.sandbox.channel.RawChannel.fields;
import static dev.agentbox.sandbox.channel.RawChannel.head;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.DaemonThreads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The helper over TCP ({@code serve-tcp}): every case of {@link HostSandboxdContract} after the
 * challenge-response with the right key, then the attacks of issue 37 — no credential, another
 * sandbox's key, a replayed answer, an oversized or misshapen answer, a silent client. Each must be
 * refused: the connection closed with nothing sent but the challenge, and no request served. After
 * each, the contract's own check has the same server answer a correct client.
 */
abstract class HostSandboxdTcpContract extends HostSandboxdContract {

    private static final Duration DEADLINE = Duration.ofSeconds(5);

    private final ScheduledThreadPoolExecutor watchdog =
            new ScheduledThreadPoolExecutor(1, new DaemonThreads("test-watchdog"));
    private final ExecutorService readers =
            Executors.newCachedThreadPool(new DaemonThreads("test-readers"));

    @Override
    HostSandboxd.Transport transport() {
        return HostSandboxd.Transport.TCP;
    }

    @AfterEach
    void stopThreads() {
        watchdog.shutdownNow();
        readers.shutdownNow();
    }

    /**
     * The helper refused the connection without a word: at most its challenge, then the end of the
     * stream — or a reset, which is how the kernel closes a connection with our bytes still unread
     * by the helper.
     */
    private static void assertRefused(RawChannel c) throws IOException {
        assertRefused(c, () -> {});
    }

    /** What a test writes before it reads the refusal. */
    @FunctionalInterface
    private interface Sending {
        void send() throws IOException;
    }

    /**
     * {@code sending}, then {@link #assertRefused(RawChannel)}. A reset or a broken pipe while
     * sending is the same refusal: the helper closes on the first bytes it will not serve, and the
     * rest of a frame written after that meets a closed connection.
     */
    private static void assertRefused(RawChannel c, Sending sending) throws IOException {
        try {
            sending.send();
        } catch (IOException closed) {
            assertThat(closed.getMessage()).matches("(?is).*(reset|broken pipe).*");
            return;
        }
        try {
            Frame f = c.read();
            if (f != null && f.type() == 'N') {
                f = c.read();
            }
            assertThat(f).as("a frame after the refusal").isNull();
        } catch (IOException reset) {
            assertThat(reset.getMessage()).containsIgnoringCase("reset");
        }
    }

    @Test
    void theServersClientServesRequestsOverTcpWithTheSandboxsKey() {
        SandboxChannel ch = new SandboxChannel("tcp", helper.endpoint(), watchdog, readers);
        String file = dir.resolve("over-tcp/file").toString();
        ch.write(file, "hello".getBytes(StandardCharsets.UTF_8), 0640, DEADLINE);
        assertThat(ch.stat(file, true, DEADLINE)).contains(new SandboxChannel.Stat(0x81a0, 5));
        assertThat(new String(ch.list(dir.resolve("over-tcp").toString(), 1024, DEADLINE)))
                .isEqualTo("f/file\0");
        assertThat(ch.answers()).as("a hello on a new connection, kept as the spare").isTrue();
        assertThat(ch.hasSpare()).isTrue();
        ch.dropSpare();
    }

    @Test
    void aRequestWithoutAnAnswerToTheChallengeIsNotServed() throws IOException {
        Path target = dir.resolve("made-without-a-key");
        // As a client of the Unix socket would: hello and request at once, the challenge unread.
        try (RawChannel c = helper.connectUnauthenticated()) {
            assertRefused(
                    c, () -> c.send('H', RawChannel.VERSION).send('M', fields(target.toString())));
        }
        // A request frame in place of the answer.
        try (RawChannel c = helper.connectUnauthenticated()) {
            c.challenge();
            assertRefused(c, () -> c.send('M', fields(target.toString())));
        }
        assertThat(target).doesNotExist();
    }

    @Test
    void anotherSandboxsKeyIsRefused() throws IOException {
        byte[] other = ChannelKey.generate(new SecureRandom()).bytes();
        try (RawChannel c = helper.connectUnauthenticated()) {
            byte[] nonceH = c.challenge();
            assertRefused(c, () -> c.sendRaw(RawChannel.answer(other, nonceH, new byte[32])));
        }
        // The server's own client with that key: no request leaves it, so it may be retried
        // another way, and the channel backs off.
        TcpEndpoint right = (TcpEndpoint) helper.endpoint();
        SandboxChannel ch =
                new SandboxChannel(
                        "other",
                        new TcpEndpoint(right.address(), ChannelKey.of(other)),
                        watchdog,
                        readers);
        Path target = dir.resolve("made-with-another-key");
        assertThatThrownBy(() -> ch.mkdir(target.toString(), DEADLINE))
                .isInstanceOfSatisfying(
                        ChannelException.class, e -> assertThat(e.requestSent()).isFalse());
        assertThat(ch.usable()).as("backing off").isFalse();
        assertThat(target).doesNotExist();
    }

    @Test
    void aReplayedAnswerFromAnEarlierConnectionIsRefused() throws IOException {
        byte[] firstNonce;
        byte[] captured;
        try (RawChannel c = helper.connectUnauthenticated()) {
            firstNonce = c.challenge();
            captured = RawChannel.answer(helper.key().bytes(), firstNonce, new byte[32]);
            c.sendRaw(captured);
            assertThat((char) c.read().type()).as("accepted on its own connection").isEqualTo('A');
        }
        try (RawChannel c = helper.connectUnauthenticated()) {
            assertThat(c.challenge()).as("a fresh nonce").isNotEqualTo(firstNonce);
            assertRefused(c, () -> c.sendRaw(captured));
        }
    }

    /** Refused on the header alone: the helper waits for no payload (far less than its 10 s). */
    @Test
    void anOversizedOrMisshapenAnswerIsRefusedByItsHeader() throws IOException {
        List<byte[]> heads =
                List.of(
                        head('A', (1 << 20) + 1),
                        head('A', 0xffffffffL),
                        head('A', 63),
                        head('A', 65),
                        head('H', 64));
        for (byte[] h : heads) {
            try (RawChannel c = helper.connectUnauthenticated()) {
                c.challenge();
                long start = System.nanoTime();
                assertRefused(c, () -> c.sendRaw(h));
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("refused at once")
                        .isLessThan(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void aSilentClientIsClosedAtTheHandshakeDeadline() throws IOException {
        try (RawChannel c = helper.connectUnauthenticated()) {
            c.challenge();
            long start = System.nanoTime();
            assertRefused(c);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofSeconds(9), Duration.ofSeconds(30));
        }
    }

    @Test
    void theKeyFileIsReadOnceAtStart() throws IOException {
        Files.write(dir.resolve("sandboxd.key"), new byte[32]);
        try (RawChannel c = helper.connect()) {
            c.hello();
        }
    }
}
