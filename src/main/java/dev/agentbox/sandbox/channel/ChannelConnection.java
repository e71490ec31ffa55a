package dev.agentbox.sandbox.channel;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection to a sandbox's helper: connected, handshaken, then one request. Frames are read by
 * one thread and written by any (writes are serialized); reads and writes use the socket channel
 * directly, whose read and write locks are separate, so a blocked read never holds up a write of
 * stdin or a signal.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Nothing is written before the endpoint has connected and, over TCP, authenticated both ends
 *       ({@link ChannelEndpoint#connect}), and then nothing but the hello before the helper has
 *       answered it with our own version: a listener that is not our helper receives at most an
 *       authentication answer and a hello, never a request.
 *   <li>Every frame read is checked against the protocol's limit and answer types before its
 *       payload is allocated.
 * </ul>
 */
final class ChannelConnection implements Closeable {

    private final ChannelEndpoint endpoint;
    private final SocketChannel channel;
    private final ByteBuffer header = ByteBuffer.allocate(5);
    private final Object writeLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Runnable onClose;

    /**
     * An unconnected connection to {@code endpoint}; {@link #close} from another thread aborts what
     * it waits for.
     */
    ChannelConnection(ChannelEndpoint endpoint) throws IOException {
        this.endpoint = endpoint;
        this.channel = SocketChannel.open(endpoint.family());
    }

    /**
     * Connects (and authenticates, over TCP) and exchanges the hello. The caller bounds the time
     * (by closing the connection from a watchdog).
     */
    void handshake() throws IOException {
        endpoint.connect(channel);
        send(ChannelProtocol.HELLO, ChannelProtocol.VERSION.getBytes(StandardCharsets.UTF_8));
        Frame hello = read();
        if (hello.type() != ChannelProtocol.HELLO
                || !ChannelProtocol.VERSION.equals(hello.text())) {
            throw new IOException(
                    "the helper answered the hello with "
                            + (hello.type() == ChannelProtocol.FAILED
                                    ? ChannelRefusal.of(hello).getMessage()
                                    : "frame " + (char) hello.type()));
        }
    }

    void send(byte type, byte[] payload) throws IOException {
        send(type, payload, 0, payload.length);
    }

    void send(byte type, byte[] payload, int off, int len) throws IOException {
        if (len > ChannelProtocol.MAX_PAYLOAD) {
            throw new IllegalArgumentException("frame payload over the limit: " + len);
        }
        ByteBuffer h = ByteBuffer.allocate(5).put(type).putInt(len).flip();
        ByteBuffer p = ByteBuffer.wrap(payload, off, len);
        synchronized (writeLock) {
            while (h.hasRemaining() || p.hasRemaining()) {
                channel.write(new ByteBuffer[] {h, p});
            }
        }
    }

    /**
     * The next frame. A length over the limit or a type the helper may not send is a {@link
     * ChannelProtocolException}; the end of the stream is an {@link EOFException}.
     */
    Frame read() throws IOException {
        header.clear();
        fill(header);
        header.flip();
        byte type = header.get();
        int len = header.getInt();
        if (!ChannelProtocol.answerType(type)) {
            throw new ChannelProtocolException("unknown frame type " + (type & 0xff));
        }
        if (len < 0 || len > ChannelProtocol.MAX_PAYLOAD) {
            throw new ChannelProtocolException(
                    "frame of " + Integer.toUnsignedString(len) + " bytes, over the limit");
        }
        ByteBuffer payload = ByteBuffer.allocate(len);
        fill(payload);
        return new Frame(type, payload.array());
    }

    private void fill(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                throw new EOFException("the helper closed the connection");
            }
        }
    }

    /**
     * Whether an idle connection is still open with nothing unread: the helper's handler has not
     * exited (its container runs) and said nothing out of turn. Does not block.
     */
    boolean idleAndOpen() {
        try {
            channel.configureBlocking(false);
            try {
                return channel.read(ByteBuffer.allocate(1)) == 0;
            } finally {
                channel.configureBlocking(true);
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Runs {@code action} once, after the first {@link #close}. */
    void onClose(Runnable action) {
        this.onClose = action;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
        Runnable action = onClose;
        if (action != null) {
            action.run();
        }
    }

    /** The helper broke the protocol: its connection is closed and its channel distrusted. */
    static final class ChannelProtocolException extends IOException {
        ChannelProtocolException(String message) {
            super(message);
        }
    }
}
