package dev.agentbox.tool.http;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How HTTP tools are called ({@code agentbox.tools.http.*}, docs/operations.md).
 *
 * @param allowedHosts host names or address literals a tool's url may name (lower case); empty:
 *     none
 * @param connectTimeout to connect to the tool's address
 * @param callTimeout for the whole exchange, from connect to the last byte of the answer
 * @param maxResponseBytes a longer answer is an error result, never read further
 */
public record HttpToolSettings(
        Set<String> allowedHosts,
        Duration connectTimeout,
        Duration callTimeout,
        int maxResponseBytes) {

    public HttpToolSettings {
        allowedHosts =
                allowedHosts.stream()
                        .map(String::trim)
                        .filter(h -> !h.isEmpty())
                        .map(h -> h.toLowerCase(Locale.ROOT))
                        .collect(Collectors.toUnmodifiableSet());
    }

    public static HttpToolSettings defaults() {
        return new HttpToolSettings(
                Set.of(), Duration.ofSeconds(5), Duration.ofSeconds(60), 1024 * 1024);
    }

    /** From {@code agentbox.tools.http.*}; a key that is absent keeps its default. */
    public static HttpToolSettings fromConfig(org.eclipse.microprofile.config.Config c) {
        HttpToolSettings d = defaults();
        return new HttpToolSettings(
                c.getOptionalValue("agentbox.tools.http.allowed-hosts", String.class)
                        .map(v -> Set.of(v.split(",")))
                        .orElse(d.allowedHosts()),
                c.getOptionalValue("agentbox.tools.http.connect-timeout-ms", Long.class)
                        .map(Duration::ofMillis)
                        .orElse(d.connectTimeout()),
                c.getOptionalValue("agentbox.tools.http.timeout-ms", Long.class)
                        .map(Duration::ofMillis)
                        .orElse(d.callTimeout()),
                c.getOptionalValue("agentbox.tools.http.max-response-bytes", Integer.class)
                        .orElse(d.maxResponseBytes()));
    }

    public HttpToolSettings withAllowedHosts(Set<String> hosts) {
        return new HttpToolSettings(hosts, connectTimeout, callTimeout, maxResponseBytes);
    }

    public HttpToolSettings withCallTimeout(Duration t) {
        return new HttpToolSettings(allowedHosts, connectTimeout, t, maxResponseBytes);
    }
}
