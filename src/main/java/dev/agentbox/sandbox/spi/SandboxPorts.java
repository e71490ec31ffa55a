package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;

/**
 * Reaching a port inside the sandbox: directly, when the provider publishes it on the host, and
 * always through agentbox's own proxy, which connects to {@link #address}.
 */
public interface SandboxPorts {

    /**
     * The channel the provider publishes for {@code port} (a Docker port declared in {@code
     * policy.ports}, a local process on the host loopback); empty when it publishes none, which is
     * no error: the port is still reachable through the proxy.
     */
    Optional<Channel> published(int port);

    /**
     * Where agentbox opens a TCP connection to reach {@code port} inside the sandbox, whether or
     * not anything listens there yet. A port outside 1–65535 is {@code 400 invalid-request}; a
     * sandbox with no network address (Docker {@code network: none}) is {@code 422
     * unsupported-capability} with {@code capability: ports}.
     */
    InetSocketAddress address(int port);

    /** A URL the host can reach, and headers to send with requests to it (may be empty). */
    record Channel(String url, Map<String, String> headers) {}

    /**
     * Refuses a port outside 1–65535 with {@code 400 invalid-request}: every provider's first
     * check, before it looks at the sandbox.
     */
    static int checkRange(int port) {
        if (port < 1 || port > 65535) {
            throw ProblemException.invalidRequest("port out of range: " + port);
        }
        return port;
    }

    /**
     * The {@code 422 unsupported-capability} ({@code capability: ports}) of a sandbox whose ports
     * no connection can reach, {@code why} saying which policy keeps them closed and what to ensure
     * instead; one shape for every provider, so a client tells it apart from a port nothing listens
     * on.
     */
    static ProblemException unreachable(String sandbox, String why) {
        return new ProblemException(
                ProblemCode.UNSUPPORTED_CAPABILITY,
                "Sandbox " + sandbox + " " + why,
                Map.of("capability", "ports"),
                null);
    }
}
