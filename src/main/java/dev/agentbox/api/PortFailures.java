package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Map;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.core5.http.ConnectionClosedException;
import org.apache.hc.core5.http.NoHttpResponseException;

/**
 * The problem documents of a proxied exchange that failed before the sandbox's response head
 * arrived: {@code 502 port-unreachable}, {@code 504 port-timeout}, {@code 413 payload-too-large}.
 *
 * <p>Only failures before the head become problems: after it the caller has the sandbox's status,
 * and a failure can only cut the stream.
 */
final class PortFailures {

    private PortFailures() {}

    /**
     * The request body passed {@code agentbox.http.max-body-bytes} while it was streamed: an {@link
     * IOException} so that it travels through the HTTP client like any failed write.
     */
    static final class BodyTooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        BodyTooLarge() {
            super("request body over the limit");
        }
    }

    /** What a failure to connect or to read the response head means for the caller. */
    static ProblemException of(IOException e, PortProxy.Target t, PortProxy.Settings s) {
        if (e instanceof BodyTooLarge) {
            return tooLarge(s);
        }
        if (e instanceof ConnectTimeoutException) {
            return unreachable(
                    t,
                    "did not accept a connection within "
                            + s.connectTimeoutMs()
                            + " ms (agentbox.ports.proxy.connect-timeout-ms)");
        }
        if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
            return unreachable(
                    t,
                    "refused the connection: nothing listens on it (a server in a container must listen on"
                            + " 0.0.0.0, not only on 127.0.0.1)");
        }
        if (e instanceof SocketTimeoutException) {
            return new ProblemException(
                    ProblemCode.PORT_TIMEOUT,
                    "Port "
                            + t.port()
                            + " of sandbox "
                            + t.key()
                            + " sent no response within "
                            + s.readTimeoutMs()
                            + " ms (agentbox.ports.proxy.read-timeout-ms).",
                    Map.of("port", t.port()),
                    null);
        }
        if (e instanceof NoHttpResponseException
                || e instanceof ConnectionClosedException
                || e instanceof SocketException) {
            return unreachable(t, "closed the connection without an HTTP response");
        }
        return unreachable(t, "did not answer with a valid HTTP/1.x response");
    }

    static ProblemException tooLarge(PortProxy.Settings s) {
        return new ProblemException(
                ProblemCode.PAYLOAD_TOO_LARGE,
                "The request body is over "
                        + s.maxBodyBytes()
                        + " bytes (agentbox.http.max-body-bytes).");
    }

    private static ProblemException unreachable(PortProxy.Target t, String why) {
        return new ProblemException(
                ProblemCode.PORT_UNREACHABLE,
                "Port " + t.port() + " of sandbox " + t.key() + " " + why + ".",
                Map.of("port", t.port()),
                null);
    }
}
