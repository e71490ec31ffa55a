package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A client of the helper that sends whatever bytes it is told, well formed or not: frames are built
 * here, not by {@link SandboxChannel}, so that the tests can send what no real client would.
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
