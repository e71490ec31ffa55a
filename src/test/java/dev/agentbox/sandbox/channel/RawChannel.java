package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A client of the helper that sends whatever bytes it is told, well formed or not: frames are built
 * here, not by {@link SandboxChannel}, so that the tests can send what no real client would. Over
 * TCP it computes the challenge-response itself from docs/sandbox-channel.md (the JDK's HMAC, not
 * {@link ChannelAuth}), so the helper is checked against the document, not against our client.
 */
final class RawChannel implements AutoCloseable {

    static final String VERSION = "agentbox-sandboxd/1";

    private final SocketChannel channel;

    private RawChannel(SocketChannel channel) {
        this.channel = channel;
    }

    static RawChannel open(Path socket) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            c.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            c.close();
            throw e;
        }
        return new RawChannel(c);
    }

    /** An unauthenticated TCP connection to the loopback {@code port}. */
    static RawChannel openTcp(int port) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.INET);
        try {
            c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            c.close();
            throw e;
        }
        return new RawChannel(c);
    }

    static final String CLIENT_CONTEXT = "agentbox-sandboxd/1 client";
    static final String HELPER_CONTEXT = "agentbox-sandboxd/1 helper";

    /** HMAC-SHA256 under {@code key} of the ASCII {@code context} followed by {@code parts}. */
    static byte[] mac(byte[] key, String context, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(context.getBytes(StandardCharsets.US_ASCII));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The helper's challenge: an {@code N} frame of 32 bytes, the first thing on a connection. */
    byte[] challenge() throws IOException {
        Frame n = read();
        assertThat(n).as("the challenge").isNotNull();
        assertThat((char) n.type()).isEqualTo('N');
        assertThat(n.payload()).hasSize(32);
        return n.payload();
    }

    /**
     * The whole {@code A} frame that answers {@code nonceH} under {@code key}, with {@code nonceC}.
     */
    static byte[] answer(byte[] key, byte[] nonceH, byte[] nonceC) {
        ByteBuffer b = ByteBuffer.allocate(5 + 64);
        b.put((byte) 'A').putInt(64).put(mac(key, CLIENT_CONTEXT, nonceH)).put(nonceC);
        return b.array();
    }

    /** Reads the challenge, answers it under {@code key} and checks the helper's proof. */
    RawChannel authenticate(byte[] key) throws IOException {
        byte[] nonceH = challenge();
        byte[] nonceC = new byte[32];
        new SecureRandom().nextBytes(nonceC);
        sendRaw(answer(key, nonceH, nonceC));
        Frame proof = read();
        assertThat(proof).as("the helper's proof").isNotNull();
        assertThat((char) proof.type()).isEqualTo('A');
        assertThat(MessageDigest.isEqual(proof.payload(), mac(key, HELPER_CONTEXT, nonceH, nonceC)))
                .as("the helper's proof is its MAC over both nonces")
                .isTrue();
        return this;
    }

    /** Request fields, each terminated by NUL. */
    static byte[] fields(String... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String v : values) {
            out.writeBytes(v.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }

    /** A frame header claiming {@code length} bytes, whatever follows. */
    static byte[] head(char type, long length) {
        return new byte[] {
            (byte) type,
            (byte) (length >>> 24),
            (byte) (length >>> 16),
            (byte) (length >>> 8),
            (byte) length
        };
    }

    /**
     * Head and payload in one write: a helper that refuses the frame by its head answers and closes
     * at once, and a payload written after that would fail with a broken pipe.
     */
    RawChannel send(char type, byte[] payload) throws IOException {
        byte[] head = head(type, payload.length);
        byte[] frame = Arrays.copyOf(head, head.length + payload.length);
        System.arraycopy(payload, 0, frame, head.length, payload.length);
        return sendRaw(frame);
    }

    RawChannel send(char type, String payload) throws IOException {
        return send(type, payload.getBytes(StandardCharsets.UTF_8));
    }

    RawChannel sendRaw(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            channel.write(b);
        }
        return this;
    }

    /** Sends the hello and checks its echo. */
    RawChannel hello() throws IOException {
        send('H', VERSION);
        Frame answer = read();
        assertThat(answer).as("hello answered").isNotNull();
        assertThat((char) answer.type()).isEqualTo('H');
        assertThat(answer.text()).isEqualTo(VERSION);
        return this;
    }

    /** The next frame, or null when the helper closed the connection at a frame boundary. */
    Frame read() throws IOException {
        ByteBuffer head = ByteBuffer.allocate(5);
        if (!fill(head, true)) {
            return null;
        }
        int length = head.getInt(1);
        assertThat(length).as("answer length").isBetween(0, ChannelProtocol.MAX_PAYLOAD);
        ByteBuffer payload = ByteBuffer.allocate(length);
        fill(payload, false);
        return new Frame(head.get(0), payload.array());
    }

    /** Every frame up to and including C or F (or up to the close). */
    List<Frame> readAnswer() throws IOException {
        List<Frame> frames = new ArrayList<>();
        Frame f;
        while ((f = read()) != null) {
            frames.add(f);
            if (f.type() == 'C' || f.type() == 'F') {
                break;
            }
        }
        return frames;
    }

    /** Half-closes: the helper reads EOF, the answer can still be read. */
    void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    private boolean fill(ByteBuffer b, boolean eofAtStartIsEnd) throws IOException {
        while (b.hasRemaining()) {
            int n = channel.read(b);
            if (n < 0) {
                if (eofAtStartIsEnd && b.position() == 0) {
                    return false;
                }
                throw new EOFException("the helper closed mid-frame");
            }
        }
        b.flip();
        return true;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
