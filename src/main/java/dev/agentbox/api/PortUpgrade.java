package dev.agentbox.api;

import dev.agentbox.quota.Slot;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentLengthStrategy;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.impl.DefaultContentLengthStrategy;
import org.apache.hc.core5.http.impl.io.DefaultBHttpClientConnection;
import org.apache.hc.core5.http.message.BasicClassicHttpRequest;
import org.apache.hc.core5.http.message.MessageSupport;

/**
 * A request to switch protocols ({@code Connection: Upgrade}, e.g. a WebSocket) over a connection
 * of its own: httpcore5 writes the request and reads the answer on a socket this class opens, and
 * on {@code 101} the socket passes to a {@link PortRelay}. The pooled client cannot do this: it
 * never hands its socket over.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>The bytes the sandbox sent after its {@code 101} head, already read into the connection's
 *       buffer, reach the relay first: the relay reads the answer's unframed body, which is that
 *       buffer and then the socket.
 *   <li>Any other answer is relayed like a proxied one ({@link ProxiedResponse}) and the socket
 *       closed; the {@code streams} slot is released unless the relay took it.
 * </ul>
 */
final class PortUpgrade {

    /** A {@code 101}'s body is the switched protocol's bytes, whatever its fields say. */
    private static final ContentLengthStrategy SWITCHED_IS_UNFRAMED =
            message ->
                    message instanceof HttpResponse r && r.getCode() == 101
                            ? ContentLengthStrategy.UNDEFINED
                            : DefaultContentLengthStrategy.INSTANCE.determineLength(message);

    private final PortProxy.Settings settings;

    PortUpgrade(PortProxy.Settings settings) {
        this.settings = settings;
    }

    void forward(HttpServletRequest req, HttpServletResponse resp, PortProxy.Target t, Slot slot)
            throws IOException, ServletException {
        boolean handedOver = false;
        Socket socket = new Socket();
        try {
            HttpEntity body = body(req, t);
            connect(socket, t);
            DefaultBHttpClientConnection conn =
                    new DefaultBHttpClientConnection(
                            PortProxy.HEAD_LIMITS,
                            null,
                            null,
                            SWITCHED_IS_UNFRAMED,
                            null,
                            null,
                            null);
            conn.bind(socket);
            ClassicHttpResponse answer = exchange(conn, request(req, t, body), t);
            if (answer.getCode() != 101) {
                if (MessageSupport.canResponseHaveBody(req.getMethod(), answer)) {
                    conn.receiveResponseEntity(answer);
                }
                ProxiedResponse.relay(req, resp, answer);
                return;
            }
            conn.receiveResponseEntity(answer);
            InputStream fromSandbox = answer.getEntity().getContent();
            ProxyHeaders.toClient(answer, resp);
            PortRelay relay = req.upgrade(PortRelay.class);
            relay.attach(socket, fromSandbox, slot);
            handedOver = true;
        } catch (HttpException e) {
            throw PortFailures.of(new IOException(e.getMessage(), e), t, settings);
        } finally {
            if (!handedOver) {
                slot.close();
                socket.close();
            }
        }
    }

    private static BasicClassicHttpRequest request(
            HttpServletRequest req, PortProxy.Target t, HttpEntity body) {
        BasicClassicHttpRequest up = new BasicClassicHttpRequest(req.getMethod(), "/");
        // The raw path, not a URI's reading of it.
        up.setPath(t.pathAndQuery());
        ProxyHeaders.toSandbox(req, t, up);
        up.setHeader("Connection", "Upgrade");
        up.setHeader("Upgrade", req.getHeader("Upgrade"));
        if (body != null) {
            up.setEntity(body);
            if (body.getContentLength() < 0) {
                up.setHeader("Transfer-Encoding", "chunked");
            } else {
                up.setHeader("Content-Length", Long.toString(body.getContentLength()));
            }
        }
        return up;
    }

    /**
     * Sends the request and reads the final answer head, skipping interim {@code 1xx} answers other
     * than {@code 101}.
     *
     * @throws dev.agentbox.problem.ProblemException when no valid head arrives
     */
    private ClassicHttpResponse exchange(
            DefaultBHttpClientConnection conn, BasicClassicHttpRequest up, PortProxy.Target t)
            throws HttpException {
        try {
            conn.sendRequestHeader(up);
            conn.sendRequestEntity(up);
            conn.flush();
            ClassicHttpResponse answer = conn.receiveResponseHeader();
            while (answer.getCode() < 200 && answer.getCode() != 101) {
                answer = conn.receiveResponseHeader();
            }
            return answer;
        } catch (IOException e) {
            throw PortFailures.of(e, t, settings);
        }
    }

    private HttpEntity body(HttpServletRequest req, PortProxy.Target t) {
        try {
            return ProxiedBody.of(req, settings.maxBodyBytes());
        } catch (IOException e) {
            throw PortFailures.of(e, t, settings);
        }
    }

    private void connect(Socket socket, PortProxy.Target t) {
        try {
            socket.connect(t.address(), settings.connectTimeoutMs());
            socket.setSoTimeout(settings.readTimeoutMs());
        } catch (SocketTimeoutException e) {
            throw PortFailures.of(new ConnectTimeoutException(e.getMessage()), t, settings);
        } catch (IOException e) {
            throw PortFailures.of(e, t, settings);
        }
    }
}
