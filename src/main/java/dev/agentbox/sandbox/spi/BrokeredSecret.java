package dev.agentbox.sandbox.spi;

import java.util.List;

/**
 * A secret the sandbox never holds (docs/egress.md, "Brokered secrets"): the sandbox sees a
 * placeholder, and its egress gateway puts {@code value} in place of the placeholder in the
 * credential headers of requests to {@code hosts} only.
 *
 * @param value the secret; never logged, never stored, never in a sandbox
 * @param hosts the exact host names it is brokered to (each allowed by the sandbox's egress)
 * @param name the variable the sandbox holds its placeholder in, or empty where not yet known; a
 *     gateway names it when it refuses a request whose value it lost
 */
public record BrokeredSecret(String value, List<String> hosts, String name) {

    public BrokeredSecret {
        if (value == null || hosts == null || hosts.isEmpty() || name == null) {
            throw new IllegalArgumentException("a brokered secret needs a value and hosts");
        }
        hosts = List.copyOf(hosts);
    }

    public BrokeredSecret(String value, List<String> hosts) {
        this(value, hosts, "");
    }

    /** This secret as held in variable {@code variable}. */
    public BrokeredSecret named(String variable) {
        return new BrokeredSecret(value, hosts, variable);
    }

    @Override
    public String toString() {
        return "BrokeredSecret[" + (name.isEmpty() ? "" : name + ", ") + "hosts=" + hosts + "]";
    }
}
