package dev.agentbox.sandbox;

import static dev.agentbox.sandbox.SandboxSpecParser.aboveCeiling;
import static dev.agentbox.sandbox.SandboxSpecParser.invalid;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxPolicy.Network;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Reads an ensure body's {@code policy} ({@link PolicyBody}) into a {@link SandboxPolicy} under the
 * server's {@link EnsureRules}: each limit under its {@link ResourceCeilings ceiling} (the detail
 * and a {@code ceiling} member name it), {@code bridge} only where it is enabled, {@code egress}
 * only with network {@code egress} and within the {@link EgressLimits}, ports only with {@code
 * bridge}, each once.
 */
final class PolicyReader {

    private final EnsureRules rules;

    PolicyReader(EnsureRules rules) {
        this.rules = rules;
    }

    /** {@code value}, the member {@code policy}; absent is the default policy. */
    SandboxPolicy read(JsonObject value) {
        if (value == null) {
            return SandboxPolicy.defaults();
        }
        ResourceCeilings max = rules.ceilings();
        JsonMembers<PolicyBody> m = JsonMembers.of(value, "policy", PolicyBody.class);
        Network network = network(m.through("network"));
        EgressPolicy egress = egress(m.through("egress"), network);
        OptionalInt memoryMb = bounded(m.through("memoryMb"), "policy.memoryMb", max.maxMemoryMb());
        OptionalInt pids = bounded(m.through("pids"), "policy.pids", max.maxPids());
        Double cpus = m.through("cpus");
        if (cpus != null && cpus > max.maxCpus()) {
            throw aboveCeiling("policy.cpus", max.maxCpus());
        }
        List<Integer> ports = ports(m.finish().ports(), max.maxPorts());
        if (network == Network.EGRESS && !ports.isEmpty()) {
            // Published ports belong to the bridge network; an egress sandbox publishes
            // nothing (with network none the Docker provider refuses ports when it creates).
            throw invalid("policy.ports", "needs policy.network \"bridge\"");
        }
        return new SandboxPolicy(
                network,
                memoryMb,
                cpus == null ? OptionalDouble.empty() : OptionalDouble.of(cpus),
                pids,
                ports,
                egress);
    }

    private Network network(String wire) {
        if (wire == null || wire.equals("none")) {
            return Network.NONE;
        }
        if (wire.equals("egress")) {
            return Network.EGRESS;
        }
        if (!rules.bridgeEnabled()) {
            throw invalid(
                    "policy.network",
                    "\"bridge\" is disabled on this server (agentbox.docker.bridge-enabled)");
        }
        return Network.BRIDGE;
    }

    /** An optional count (its minimum is the record's) at most {@code ceiling}. */
    private static OptionalInt bounded(Long value, String field, int ceiling) {
        if (value == null) {
            return OptionalInt.empty();
        }
        if (value > ceiling) {
            throw aboveCeiling(field, ceiling);
        }
        return OptionalInt.of(value.intValue());
    }

    /** At most the ceiling's count of ports, counted before any is read; each 1-65535, once. */
    private static List<Integer> ports(JsonArray a, int ceiling) {
        if (a == null) {
            return List.of();
        }
        if (a.size() > ceiling) {
            throw aboveCeiling("policy.ports", ceiling);
        }
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            if (!(a.get(i) instanceof JsonNumber n)
                    || !n.isIntegral()
                    || n.bigDecimalValue().compareTo(BigDecimal.ONE) < 0
                    || n.bigDecimalValue().compareTo(BigDecimal.valueOf(65535)) > 0) {
                throw invalid("policy.ports[" + i + "]", "must be a port number 1-65535");
            }
            if (ports.contains(n.intValue())) {
                throw invalid("policy.ports[" + i + "]", "repeats port " + n.intValue());
            }
            ports.add(n.intValue());
        }
        return List.copyOf(ports);
    }

    /**
     * {@code policy.egress}: only with network {@code egress}, where it may be absent (the sandbox
     * then reaches the operator's always-allow hosts only). {@code allow} and {@code deny} together
     * hold at most {@link EgressLimits#maxRules()} entries, counted before any is read; each entry
     * appears once across both lists, compared after normalisation, so that two spellings of one
     * policy give one sandbox key and no rule is dead weight.
     */
    private EgressPolicy egress(JsonValue value, Network network) {
        if (network != Network.EGRESS) {
            if (value != null) {
                throw invalid("policy.egress", "is only allowed with policy.network \"egress\"");
            }
            return EgressPolicy.empty();
        }
        if (value == null) {
            return EgressPolicy.empty();
        }
        EgressBody e = JsonMembers.of(value, "policy.egress", EgressBody.class).finish();
        JsonArray allow = e.allow() == null ? JsonValue.EMPTY_JSON_ARRAY : e.allow();
        JsonArray deny = e.deny() == null ? JsonValue.EMPTY_JSON_ARRAY : e.deny();
        int max = rules.egress().maxRules();
        if (allow.size() > max) {
            throw tooManyRules("policy.egress.allow", max);
        }
        if (allow.size() + deny.size() > max) {
            throw tooManyRules("policy.egress.deny", max);
        }
        List<EgressRule> allowed = egressRules(allow, "policy.egress.allow", List.of(), null);
        List<EgressRule> denied = egressRules(deny, "policy.egress.deny", allowed, "allow");
        return new EgressPolicy(allowed, denied);
    }

    /**
     * The entries of one list, in order; an entry already in this list, or in {@code other} (the
     * allow list, when reading deny), is refused naming its own index.
     */
    private List<EgressRule> egressRules(
            JsonArray entries, String field, List<EgressRule> other, String otherName) {
        List<EgressRule> result = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            String at = field + "[" + i + "]";
            if (!(entries.get(i) instanceof JsonString js)) {
                throw invalid(at, "must be a string");
            }
            EgressRule rule =
                    EgressEntries.parse(js.getString(), at, rules.egress().ipLiteralsAllowed());
            int earlier = result.indexOf(rule);
            if (earlier >= 0) {
                throw invalid(at, "repeats " + field + "[" + earlier + "]");
            }
            int elsewhere = other.indexOf(rule);
            if (elsewhere >= 0) {
                throw invalid(
                        at,
                        "is also policy.egress."
                                + otherName
                                + "["
                                + elsewhere
                                + "] (an entry is either allowed or denied)");
            }
            result.add(rule);
        }
        return List.copyOf(result);
    }

    private static ProblemException tooManyRules(String field, int max) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST,
                field
                        + " is above this server's ceiling of "
                        + max
                        + " entries in allow and deny together (agentbox.egress.max-rules)",
                Map.of("field", field, "ceiling", max),
                null);
    }
}
