package dev.agentbox.sandbox.channel;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection to a sandbox's helper: connected, handshaken, then one request. Frames are read by
 * one thread and written by any (writes are serialized); reads and writes use the socket channel
 * directly, whose read and write locks are separate, so a blocked read never holds up a write of
 * stdin or a signal.
 *
 * <p>Invariants: nothing but the hello is written before the helper has answered it with our own
 * version, so a socket path swapped for a link to some other host socket (the sandbox can write
 * into its socket directory) receives one unintelligible hello and nothing else; every frame read
 * is checked against the protocol's limit and answer types before its payload is allocated.
 */
final class ChannelConnection implements Closeable {

    private final SocketChannel channel;
    private final ByteBuffer header = ByteBuffer.allocate(5);
    private final Object writeLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Runnable onClose;

    /** An unconnected connection; {@link #close} from another thread aborts what it waits for. */
    ChannelConnection() throws IOException {
        this.channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    }

    /**
     * Connects to {@code socket} — only when it is a socket, not a link to one — and exchanges the
     * hello. The caller bounds the time (by closing the connection from a watchdog).
     */
    void handshake(Path socket) throws IOException {
        BasicFileAttributes a =
                Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isOther()) {
            throw new IOException(socket + " is not a socket");
        }
        channel.connect(UnixDomainSocketAddress.of(socket));
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
