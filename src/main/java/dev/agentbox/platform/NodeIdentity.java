package dev.agentbox.platform;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * This server's name in leases, claims and logs: {@code agentbox.node-id}, else host name + port.
 */
@ApplicationScoped
public class NodeIdentity {

    @Inject
    @ConfigProperty(name = "agentbox.node-id")
    Optional<String> configured;

    @Inject
    @ConfigProperty(name = "HTTP_PORT", defaultValue = "9080")
    String httpPort;

    private String id;

    @PostConstruct
    void init() {
        id = configured.filter(s -> !s.isBlank()).orElseGet(() -> hostName() + ":" + httpPort);
    }

    public String id() {
        return id;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }
}
