package dev.agentbox.sandbox.channel;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;

/**
 * One command started through the channel. Its frames are pumped to a {@link Listener} by one
 * reader thread, in order; stdin and signals may be sent from any thread meanwhile.
 *
 * <p>Invariants: the listener hears exactly one of {@link Listener#exited} (the helper reported the
 * command's status after its output ended) or {@link Listener#broken} (the connection ended first:
 * the helper died or broke the protocol), unless {@link #close} came first, after which it hears
 * nothing more.
 */
public final class ChannelExec implements Closeable {

    /** Receives one command's output, then its end; called from one thread, in order. */
    public interface Listener {
        void stdout(byte[] bytes);

        void stderr(byte[] bytes);

        void exited(int status);

        void broken(String why);
    }

    private final SandboxChannel owner;
    private final ChannelConnection connection;
    private final Listener listener;
    private volatile boolean closed;

    ChannelExec(SandboxChannel owner, ChannelConnection connection, Listener listener) {
        this.owner = owner;
        this.connection = connection;
        this.listener = listener;
    }

    /**
     * The reader loop of an exec started without a reader ({@link SandboxChannel#execUnpumped}),
     * run once by its caller; it returns when the listener heard the end, or when {@link #close} or
     * an interrupt of this thread cut it short (then the listener hears nothing more).
     */
    public void pumpHere() {
        pump();
    }

    /** The reader loop, run once on a reader thread. */
    void pump() {
        try {
            while (true) {
                Frame f = connection.read();
                switch (f.type()) {
                    case ChannelProtocol.STDOUT -> listener.stdout(f.payload());
                    case ChannelProtocol.STDERR -> listener.stderr(f.payload());
                    case ChannelProtocol.COMPLETED -> {
                        listener.exited(status(f));
                        return;
                    }
                    case ChannelProtocol.FAILED -> {
                        listener.broken(
                                "the helper refused the command: "
                                        + ChannelRefusal.of(f).getMessage());
                        return;
                    }
                    default ->
                            throw new ChannelConnection.ChannelProtocolException(
                                    "frame " + (char) f.type() + " in an exec");
                }
            }
        } catch (ClosedByInterruptException e) {
            // The reading thread was interrupted (its caller gave up): no fault of the channel.
            closed = true;
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                owner.failed(e);
                listener.broken(
                        "the sandbox channel ended before the command did ("
                                + e.getClass().getSimpleName()
                                + (e.getMessage() == null ? "" : ": " + e.getMessage())
                                + ")");
            }
        } finally {
            connection.close();
        }
    }

    private static int status(Frame f) throws IOException {
        try {
            return Integer.parseInt(f.text().strip());
        } catch (NumberFormatException e) {
            throw new ChannelConnection.ChannelProtocolException("malformed exit status");
        }
    }

    /** Writes to the command's stdin (the exec was started with a stdin pipe). */
    public void writeStdin(byte[] bytes) {
        try {
            for (int off = 0; off < bytes.length; off += ChannelProtocol.CHUNK) {
                connection.send(
                        ChannelProtocol.STDIN,
                        bytes,
                        off,
                        Math.min(ChannelProtocol.CHUNK, bytes.length - off));
            }
        } catch (IOException e) {
            throw new ChannelException("stdin could not be written: " + e.getMessage(), true, e);
        }
    }

    /** Closes the command's stdin: it reads end of input. */
    public void closeStdin() {
        try {
            connection.send(ChannelProtocol.EOF, new byte[0]);
        } catch (IOException e) {
            throw new ChannelException("stdin could not be closed: " + e.getMessage(), true, e);
        }
    }

    /** Sends {@code signal} (a Linux signal number) to the command's process group. */
    public void signal(int signal) {
        try {
            connection.send(
                    ChannelProtocol.SIGNAL,
                    Integer.toString(signal).getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new ChannelException("the signal could not be sent: " + e.getMessage(), true, e);
        }
    }

    /** Stops reading and drops the connection; the command itself lives on (docs: exec). */
    @Override
    public void close() {
        closed = true;
        connection.close();
    }
}
