package dev.agentbox.sandbox.spi;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Resource and network limits of a sandbox. Absent limits fall back to the provider's configured
 * defaults. {@code ports} are the in-sandbox ports to publish to the host (only meaningful with
 * {@link Network#BRIDGE}); {@code egress} is what an {@link Network#EGRESS} sandbox may reach
 * (empty for every other network).
 */
public record SandboxPolicy(
        Network network,
        OptionalInt memoryMb,
        OptionalDouble cpus,
        OptionalInt pids,
        List<Integer> ports,
        EgressPolicy egress) {

    public enum Network {
        /** No network at all except loopback (the default). */
        NONE,
        /**
         * Egress allowed and ports can be published, on the tenant's own network: no traffic to
         * other sandboxes (of any tenant) or to the host's own listeners (docs/hardening.md).
         */
        BRIDGE,
        /**
         * Only the destinations {@link #egress()} (plus the operator's always-allow list) names,
         * through the egress gateway: no other route out, DNS only for allowed names.
         */
        EGRESS
    }

    /** A policy without egress rules (every network but {@link Network#EGRESS} has none). */
    public SandboxPolicy(
            Network network,
            OptionalInt memoryMb,
            OptionalDouble cpus,
            OptionalInt pids,
            List<Integer> ports) {
        this(network, memoryMb, cpus, pids, ports, EgressPolicy.empty());
    }

    public SandboxPolicy {
        network = network == null ? Network.NONE : network;
        memoryMb = memoryMb == null ? OptionalInt.empty() : memoryMb;
        cpus = cpus == null ? OptionalDouble.empty() : cpus;
        pids = pids == null ? OptionalInt.empty() : pids;
        ports = ports == null ? List.of() : List.copyOf(ports);
        egress = egress == null ? EgressPolicy.empty() : egress;
    }

    /** No network, provider default limits, no ports. */
    public static SandboxPolicy defaults() {
        return new SandboxPolicy(
                Network.NONE,
                OptionalInt.empty(),
                OptionalDouble.empty(),
                OptionalInt.empty(),
                List.of());
    }

    public SandboxPolicy withNetwork(Network n) {
        return new SandboxPolicy(n, memoryMb, cpus, pids, ports, egress);
    }

    public SandboxPolicy withEgress(EgressPolicy e) {
        return new SandboxPolicy(network, memoryMb, cpus, pids, ports, e);
    }

    public SandboxPolicy withPorts(List<Integer> p) {
        return new SandboxPolicy(network, memoryMb, cpus, pids, p, egress);
    }

    public SandboxPolicy withLimits(int memoryMb, double cpus, int pids) {
        return new SandboxPolicy(
                network,
                OptionalInt.of(memoryMb),
                OptionalDouble.of(cpus),
                OptionalInt.of(pids),
                ports,
                egress);
    }
}
