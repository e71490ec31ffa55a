package dev.agentbox.sandbox.spi;

import java.util.Map;

/** Reaching a port inside the sandbox from the host. */
public interface SandboxPorts {

    /**
     * A channel to {@code port}; a port the sandbox does not publish is {@code 400
     * invalid-request}.
     */
    Channel connect(int port);

    /** A URL the host can reach, and headers to send with requests to it (may be empty). */
    record Channel(String url, Map<String, String> headers) {}
}
