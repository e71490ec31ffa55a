package dev.agentbox.sandbox.spi;

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
}
