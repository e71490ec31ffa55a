package dev.agentbox.sandbox.spi;

import java.util.List;

/**
 * A secret the sandbox never holds (docs/egress.md, "Brokered secrets"): the sandbox sees a
 * placeholder, and its egress gateway puts {@code value} in place of the placeholder in the
 * credential headers of requests to {@code hosts} only.
 *
 * @param value the secret; never logged, never stored, never in a sandbox
 * @param hosts the exact host names it is brokered to (each allowed by the sandbox's egress)
 */
public record BrokeredSecret(String value, List<String> hosts) {

    public BrokeredSecret {
        if (value == null || hosts == null || hosts.isEmpty()) {
            throw new IllegalArgumentException("a brokered secret needs a value and hosts");
        }
        hosts = List.copyOf(hosts);
    }

    @Override
    public String toString() {
        return "BrokeredSecret[hosts=" + hosts + "]";
    }
}
