package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Slot;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Forwards one HTTP request to a port inside a sandbox over a fresh TCP connection, and streams the
 * response back; an {@code Upgrade} request answered {@code 101} becomes a {@link PortRelay}.
 *
 * <p>What crosses, and what does not:
 *
 * <ul>
 *   <li>Method, the path after {@code /proxy}, the query and the body go through unchanged; the
 *       body is streamed, at most {@code maxBodyBytes} of it.
 *   <li>Hop-by-hop fields ({@link HttpHead#hopByHop}) stay on their side. So do {@code
 *       Authorization} (it is the caller's agentbox token), {@code Cookie} and {@code Set-Cookie}
 *       (every sandbox's port shares agentbox's origin, so a cookie set by one would be sent to
 *       all), and the caller's own {@code Forwarded}/{@code X-Forwarded-*}, which the proxy sets
 *       itself. {@code Clear-Site-Data} from the sandbox is dropped too.
 *   <li>Every answer carries {@code Content-Security-Policy: sandbox …} ({@link #SANDBOX_POLICY}):
 *       in a browser a sandbox's page runs in an opaque origin, never as agentbox's.
 *   <li>The upstream connection is {@code Connection: close}, so a response without a length ends
 *       when the sandbox closes it; chunked bodies are decoded and the container frames the reply.
 * </ul>
 *
 * <p>Invariant: until the response head arrives nothing has been written to the client, so every
 * failure up to then is a problem document ({@code 502 port-unreachable}, {@code 504 port-timeout},
 * {@code 413 payload-too-large}); after it, a failure can only cut the stream.
 */
final class PortProxy {

    private static final Logger LOG = Logger.getLogger(PortProxy.class.getName());

    private static final int BUFFER = 16 * 1024;

    /** Request fields never forwarded besides the hop-by-hop ones (see the class comment). */
    private static final Set<String> DROPPED_REQUEST =
            Set.of(
                    "authorization",
                    "cookie",
                    "expect",
                    "forwarded",
                    "x-forwarded-for",
                    "x-forwarded-host",
                    "x-forwarded-proto",
                    "x-forwarded-prefix");

    /**
     * Response fields never forwarded: cookies (see the class comment) and {@code Clear-Site-Data},
     * with which a sandbox's page could wipe the storage of agentbox's own origin (the console
     * keeps its token there).
     */
    private static final Set<String> DROPPED_RESPONSE =
            Set.of("set-cookie", "set-cookie2", "clear-site-data");

    /**
     * Added to every proxied answer. A sandbox's pages share agentbox's origin; sandboxed without
     * {@code allow-same-origin}, a page runs in an opaque origin instead, so its scripts cannot
     * read the console's storage nor call the API with what it holds. Browsers enforce every policy
     * an answer carries, so a policy the sandbox sends itself can only add restrictions to this
     * one.
     */
    static final String SANDBOX_POLICY =
            "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads";

    /**
     * @param connectTimeoutMs bound on opening the TCP connection
     * @param readTimeoutMs bound on any wait for the sandbox's next bytes (the response head, the
     *     body, an upgraded connection's traffic)
     * @param maxBodyBytes bound on the request body
     */
    record Settings(int connectTimeoutMs, int readTimeoutMs, long maxBodyBytes) {}

    /**
     * One request's destination.
     *
     * @param pathAndQuery the raw path after {@code /proxy} (at least {@code /}) and {@code ?query}
     * @param prefix the raw path up to and without the trailing {@code /} of {@code /proxy/}, sent
     *     as {@code X-Forwarded-Prefix} so an application can build its own links
     */
    record Target(
            InetSocketAddress address, int port, String key, String pathAndQuery, String prefix) {}

    private final Settings settings;

    PortProxy(Settings settings) {
        this.settings = settings;
    }

    /**
     * Whether the request asks to switch protocols ({@code Connection: upgrade} + {@code Upgrade}).
     */
    static boolean isUpgrade(HttpServletRequest req) {
        return req.getHeader("Upgrade") != null
                && HttpHead.tokens(String.join(",", Collections.list(req.getHeaders("Connection"))))
                        .contains("upgrade");
    }

    /**
     * Forwards {@code req} and writes the sandbox's answer to {@code resp}. {@code slot} (held for
     * an upgrade) passes to the relay when the sandbox switches protocols and is closed otherwise.
     *
     * @throws ProblemException before anything was written to {@code resp}
     */
    void forward(HttpServletRequest req, HttpServletResponse resp, Target t, Slot slot)
            throws IOException, ServletException {
        boolean handedOver = false;
        Socket socket = null;
        try {
            long declared = req.getContentLengthLong();
            boolean chunkedIn = req.getHeader("Transfer-Encoding") != null;
            if (declared > settings.maxBodyBytes()) {
                throw tooLarge();
            }
            boolean upgrade = isUpgrade(req);
            socket = connect(t);
            OutputStream upOut = new BufferedOutputStream(socket.getOutputStream(), BUFFER);
            InputStream upIn = new BufferedInputStream(socket.getInputStream(), BUFFER);
            upOut.write(requestHead(req, t, upgrade, declared, chunkedIn));
            try {
                if (chunkedIn) {
                    copyChunked(req.getInputStream(), upOut);
                } else if (declared > 0) {
                    copy(req.getInputStream(), upOut, declared);
                }
                upOut.flush();
            } catch (IOException sandboxStoppedReading) {
                // The application may answer before reading the whole body (a 413 of its own):
                // its answer, if any, is still read below.
                LOG.log(Level.FINE, "request body not fully forwarded", sandboxStoppedReading);
            }
            HttpHead head = readHead(upIn, t);
            if (head.status() == 101) {
                if (!upgrade) {
                    throw unreachable(t, "switched protocols without being asked to");
                }
                resp.setStatus(101);
                for (Map.Entry<String, String> f : head.fields()) {
                    String n = f.getKey().toLowerCase(Locale.ROOT);
                    if (n.equals("upgrade") || n.equals("connection")) {
                        resp.setHeader(f.getKey(), f.getValue());
                    } else if (!HttpHead.hopByHop(n, head.connectionTokens())
                            && !DROPPED_RESPONSE.contains(n)) {
                        resp.addHeader(f.getKey(), f.getValue());
                    }
                }
                socket.setSoTimeout(settings.readTimeoutMs());
                PortRelay relay = req.upgrade(PortRelay.class);
                relay.attach(socket, upIn, slot);
                handedOver = true;
                return;
            }
            respond(req, resp, head, upIn);
        } finally {
            if (!handedOver) {
                slot.close();
                if (socket != null) {
                    socket.close();
                }
            }
        }
    }

    private Socket connect(Target t) {
        Socket socket = new Socket();
        try {
            socket.connect(t.address(), settings.connectTimeoutMs());
            socket.setSoTimeout(settings.readTimeoutMs());
            return socket;
        } catch (ConnectException | NoRouteToHostException e) {
            closeQuietly(socket);
            throw unreachable(
                    t,
                    "refused the connection: nothing listens on it (a server in a container must listen on"
                            + " 0.0.0.0, not only on 127.0.0.1)");
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            throw unreachable(
                    t,
                    "did not accept a connection within "
                            + settings.connectTimeoutMs()
                            + " ms (agentbox.ports.proxy.connect-timeout-ms)");
        } catch (IOException e) {
            closeQuietly(socket);
            throw unreachable(t, "could not be connected to");
        }
    }

    private byte[] requestHead(
            HttpServletRequest req, Target t, boolean upgrade, long declared, boolean chunkedIn) {
        StringBuilder h = new StringBuilder(512);
        h.append(req.getMethod()).append(' ').append(t.pathAndQuery()).append(" HTTP/1.1\r\n");
        h.append("Host: localhost:").append(t.port()).append("\r\n");
        Set<String> connection =
                HttpHead.tokens(String.join(",", Collections.list(req.getHeaders("Connection"))));
        for (String name : Collections.list(req.getHeaderNames())) {
            String n = name.toLowerCase(Locale.ROOT);
            if (HttpHead.hopByHop(n, connection) || DROPPED_REQUEST.contains(n)) {
                continue;
            }
            for (String value : Collections.list(req.getHeaders(name))) {
                field(h, name, value);
            }
        }
        if (upgrade) {
            h.append("Connection: Upgrade\r\n");
            field(h, "Upgrade", req.getHeader("Upgrade"));
        } else {
            h.append("Connection: close\r\n");
        }
        if (chunkedIn) {
            h.append("Transfer-Encoding: chunked\r\n");
        } else if (declared >= 0) {
            h.append("Content-Length: ").append(declared).append("\r\n");
        }
        field(h, "X-Forwarded-For", req.getRemoteAddr());
        field(h, "X-Forwarded-Proto", req.getScheme());
        if (req.getHeader("Host") != null) {
            field(h, "X-Forwarded-Host", req.getHeader("Host"));
        }
        field(h, "X-Forwarded-Prefix", t.prefix());
        h.append("\r\n");
        return h.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Appends a field; a value with a line break (which no parsed request holds) is dropped. */
    private static void field(StringBuilder h, String name, String value) {
        if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
            return;
        }
        h.append(name).append(": ").append(value).append("\r\n");
    }

    /** The final response head, skipping interim {@code 1xx} answers other than {@code 101}. */
    private HttpHead readHead(InputStream upIn, Target t) {
        try {
            HttpHead head = HttpHead.read(upIn);
            while (head.status() < 200 && head.status() != 101) {
                head = HttpHead.read(upIn);
            }
            return head;
        } catch (SocketTimeoutException e) {
            throw new ProblemException(
                    ProblemCode.PORT_TIMEOUT,
                    "Port "
                            + t.port()
                            + " of sandbox "
                            + t.key()
                            + " sent no response within "
                            + settings.readTimeoutMs()
                            + " ms (agentbox.ports.proxy.read-timeout-ms).",
                    Map.of("port", t.port()),
                    null);
        } catch (EOFException e) {
            throw unreachable(t, "closed the connection without an HTTP response");
        } catch (IOException e) {
            throw unreachable(t, "did not answer with a valid HTTP/1.x response");
        }
    }

    private void respond(
            HttpServletRequest req, HttpServletResponse resp, HttpHead head, InputStream upIn)
            throws IOException {
        resp.setStatus(head.status());
        resp.addHeader("Content-Security-Policy", SANDBOX_POLICY);
        Set<String> connection = head.connectionTokens();
        for (Map.Entry<String, String> f : head.fields()) {
            String n = f.getKey().toLowerCase(Locale.ROOT);
            if (!HttpHead.hopByHop(n, connection) && !DROPPED_RESPONSE.contains(n)) {
                resp.addHeader(f.getKey(), f.getValue());
            }
        }
        boolean noBody =
                "HEAD".equals(req.getMethod()) || head.status() == 204 || head.status() == 304;
        if (noBody) {
            return;
        }
        OutputStream out = resp.getOutputStream();
        boolean chunked =
                head.first("Transfer-Encoding")
                        .map(v -> HttpHead.tokens(v).contains("chunked"))
                        .orElse(false);
        long length =
                chunked ? -1 : head.first("Content-Length").map(PortProxy::length).orElse(-1L);
        if (chunked) {
            copyDechunked(upIn, out);
        } else if (length >= 0) {
            resp.setContentLengthLong(length);
            copy(upIn, out, length);
        } else {
            copy(upIn, out, Long.MAX_VALUE);
        }
        out.flush();
    }

    private static long length(String value) {
        try {
            long n = Long.parseLong(value.trim());
            return n < 0 ? -1 : n;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Copies up to {@code limit} bytes (to the end of {@code in} when it has fewer), flushing
     * whenever {@code in} has nothing more buffered so a slow stream reaches the client as it
     * comes.
     */
    private static void copy(InputStream in, OutputStream out, long limit) throws IOException {
        byte[] buf = new byte[BUFFER];
        long left = limit;
        while (left > 0) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (n < 0) {
                return;
            }
            out.write(buf, 0, n);
            left -= n;
            if (in.available() == 0) {
                out.flush();
            }
        }
    }

    /** Re-chunks a request body of unknown length, refusing it past {@code maxBodyBytes}. */
    void copyChunked(InputStream in, OutputStream out) throws IOException {
        byte[] buf = new byte[BUFFER];
        long total = 0;
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
            if (n == 0) {
                continue;
            }
            total += n;
            if (total > settings.maxBodyBytes()) {
                throw tooLarge();
            }
            out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(buf, 0, n);
            out.write(CRLF);
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    private static final byte[] CRLF = {'\r', '\n'};

    /** Decodes a chunked body (RFC 9112 7.1), dropping extensions and trailers. */
    static void copyDechunked(InputStream in, OutputStream out) throws IOException {
        while (true) {
            String sizeLine = asciiLine(in);
            int semi = sizeLine.indexOf(';');
            String hex = (semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim();
            long size;
            try {
                size = Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                throw new IOException("malformed chunk size");
            }
            if (size < 0) {
                throw new IOException("malformed chunk size");
            }
            if (size == 0) {
                while (!asciiLine(in).isEmpty()) {
                    // trailer fields are not relayed
                }
                return;
            }
            copyExactly(in, out, size);
            if (!asciiLine(in).isEmpty()) {
                throw new IOException("chunk not followed by CRLF");
            }
        }
    }

    private static void copyExactly(InputStream in, OutputStream out, long size)
            throws IOException {
        byte[] buf = new byte[BUFFER];
        long left = size;
        while (left > 0) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (n < 0) {
                throw new EOFException("stream ended inside a chunk");
            }
            out.write(buf, 0, n);
            left -= n;
        }
        if (in.available() == 0) {
            out.flush();
        }
    }

    private static String asciiLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(16);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("stream ended inside a chunked body");
            }
            if (b.size() > 4096) {
                throw new IOException("chunk line too long");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    private ProblemException tooLarge() {
        return new ProblemException(
                ProblemCode.PAYLOAD_TOO_LARGE,
                "The request body is over "
                        + settings.maxBodyBytes()
                        + " bytes (agentbox.http.max-body-bytes).");
    }

    private static ProblemException unreachable(Target t, String why) {
        return new ProblemException(
                ProblemCode.PORT_UNREACHABLE,
                "Port " + t.port() + " of sandbox " + t.key() + " " + why + ".",
                Map.of("port", t.port()),
                null);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing was sent on it
        }
    }
}
