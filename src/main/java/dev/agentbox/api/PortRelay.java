package dev.agentbox.api;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.quota.Slot;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpUpgradeHandler;
import jakarta.servlet.http.WebConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The raw byte relay of an upgraded connection (a WebSocket, or any protocol a sandbox switches to
 * with {@code 101}): once the container hands over the client connection, a thread of the relay
 * copies the sandbox's bytes to the client and the container's read listener copies the client's to
 * the sandbox, until either side ends.
 *
 * <p>Invariants: the relay closes both connections and releases its quota slot exactly once,
 * whichever side ends first or fails; an upstream silent for the proxy's read timeout ends it too,
 * so no relay outlives both peers' interest.
 */
public class PortRelay implements HttpUpgradeHandler {

    private static final Logger LOG = Logger.getLogger(PortRelay.class.getName());
    private static final ThreadFactory THREADS = new DaemonThreads("agentbox-port-relay");

    private final AtomicBoolean closed = new AtomicBoolean();
    private Socket upstream;
    private InputStream upstreamIn;
    private Slot slot = Slot.NONE;
    private WebConnection client;

    /** Called by the proxy before the container calls {@link #init}. */
    void attach(Socket upstream, InputStream upstreamIn, Slot slot) {
        this.upstream = upstream;
        this.upstreamIn = upstreamIn;
        this.slot = slot;
    }

    @Override
    public void init(WebConnection connection) {
        this.client = connection;
        try {
            ServletInputStream clientIn = connection.getInputStream();
            OutputStream clientOut = connection.getOutputStream();
            OutputStream upstreamOut = upstream.getOutputStream();
            THREADS.newThread(() -> pump(upstreamIn, clientOut, "sandbox to client")).start();
            // The client side is read through the container's listener, not by a blocking read
            // on a thread of ours: the container's upgraded streams are not safe against a
            // blocking read racing a write.
            clientIn.setReadListener(new ClientReads(clientIn, upstreamOut));
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "upgraded connection could not start", e);
            close();
        }
    }

    private void pump(InputStream in, OutputStream out, String direction) {
        byte[] buf = new byte[16 * 1024];
        try {
            for (int n = in.read(buf); n >= 0 && !closed.get(); n = in.read(buf)) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "relay " + direction + " ended", e);
        } finally {
            close();
        }
    }

    /** Copies what the client sends to the sandbox whenever the container has bytes ready. */
    private final class ClientReads implements ReadListener {
        private final ServletInputStream in;
        private final OutputStream out;
        private final byte[] buf = new byte[16 * 1024];

        ClientReads(ServletInputStream in, OutputStream out) {
            this.in = in;
            this.out = out;
        }

        @Override
        public void onDataAvailable() throws IOException {
            try {
                while (!closed.get() && in.isReady()) {
                    int n = in.read(buf);
                    if (n < 0) {
                        close();
                        return;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.FINE, "relay client to sandbox ended", e);
                close();
            }
        }

        @Override
        public void onAllDataRead() {
            close();
        }

        @Override
        public void onError(Throwable t) {
            LOG.log(Level.FINE, "relay client to sandbox failed", t);
            close();
        }
    }

    @Override
    public void destroy() {
        close();
    }

    private void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (upstream != null) {
                upstream.close();
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing the sandbox side", e);
        }
        try {
            if (client != null) {
                client.close();
            }
        } catch (Exception e) {
            LOG.log(Level.FINE, "closing the client side", e);
        }
        slot.close();
    }
}
