package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxSpec.Lifecycle;
import dev.agentbox.sandbox.SandboxSpec.Reuse;
import dev.agentbox.sandbox.SandboxSpec.SnapshotMode;
import dev.agentbox.sandbox.SandboxSpec.Workspace;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxPolicy.Network;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Turns an ensure body ({@link EnsureBody}) into a {@link SandboxSpec}, or a {@code 400
 * invalid-request} whose detail names the offending field (e.g. {@code workspace.setup[1][0]}).
 * Unknown members are rejected too: a misspelt {@code polcy} must not silently mean "default
 * policy".
 *
 * <p>Every check the server can make without the engine happens here, before the key is computed or
 * anything is created: {@code image} on the allowlist ({@code 400 image-not-allowed}), limits under
 * the {@link ResourceCeilings} (the detail and a {@code ceiling} member name the ceiling), ids
 * printable and short, no control characters in URLs and refs, no NUL in commands, numbers in
 * range, egress entries read by {@link EgressEntries} within the {@link EgressLimits}. The body is
 * read from top to bottom ({@link JsonMembers}, {@link WorkspaceReader}, {@link PolicyReader}), so
 * of several faults the first one met is named, always the same.
 */
public final class SandboxSpecParser {

    private final long defaultKeepAliveMs;
    private final EnsureRules rules;
    private final WorkspaceReader workspaces;
    private final PolicyReader policies;

    /**
     * A parser with the default allowlist and ceilings (tests and tools); local sources enabled
     * here have no root, so every one is refused.
     */
    public SandboxSpecParser(long defaultKeepAliveMs, boolean localSourcesEnabled) {
        this(defaultKeepAliveMs, localSourcesEnabled, EnsureRules.defaults());
    }

    /** As {@link #SandboxSpecParser(long, boolean)}, with these rules. */
    public SandboxSpecParser(
            long defaultKeepAliveMs, boolean localSourcesEnabled, EnsureRules rules) {
        this(
                defaultKeepAliveMs,
                localSourcesEnabled
                        ? new LocalSources(
                                true,
                                Optional.empty(),
                                LocalSources.DEFAULT_MAX_BYTES,
                                LocalSources.DEFAULT_MAX_FILES)
                        : LocalSources.disabled(),
                rules);
    }

    public SandboxSpecParser(
            long defaultKeepAliveMs, LocalSources localSources, EnsureRules rules) {
        this.defaultKeepAliveMs = defaultKeepAliveMs;
        this.rules = rules;
        this.workspaces = new WorkspaceReader(localSources);
        this.policies = new PolicyReader(rules);
    }

    public SandboxSpec parse(JsonValue body) {
        JsonMembers<EnsureBody> m = JsonMembers.of(body, "", EnsureBody.class);
        String image = m.through("image");
        if (image != null) {
            rules.images().check(image);
        }
        Workspace workspace = workspaces.read(m.through("workspace"));
        SandboxPolicy policy = policies.read(m.through("policy"));
        checkBrokered(workspace, policy);
        EnsureBody b = m.finish();
        Optional<String> threadId = Optional.ofNullable(b.threadId());
        Lifecycle lifecycle = lifecycle(b.lifecycle(), threadId.isPresent());
        if (lifecycle.reuse() == Reuse.THREAD && threadId.isEmpty()) {
            throw invalid("threadId", "is required when lifecycle.reuse is \"thread\"");
        }
        return new SandboxSpec(
                b.definitionId() == null ? "default" : b.definitionId(),
                b.provider() == null ? "docker" : b.provider(),
                Optional.ofNullable(image),
                threadId,
                workspace,
                policy,
                lifecycle);
    }

    /**
     * {@code spec} made from {@code image} when it names no image and goes to the {@code docker}
     * provider (the only one with images); else {@code spec} unchanged. The image passes the same
     * allowlist as a named one ({@code 400 image-not-allowed}), so a default that is not on the
     * list never reaches the engine.
     */
    public SandboxSpec withDefaultImage(SandboxSpec spec, String image) {
        if (spec.image().isPresent() || !"docker".equals(spec.provider())) {
            return spec;
        }
        rules.images().check(image);
        return new SandboxSpec(
                spec.definitionId(),
                spec.provider(),
                Optional.of(image),
                spec.threadId(),
                spec.workspace(),
                spec.policy(),
                spec.lifecycle());
    }

    /**
     * A brokered secret needs the egress gateway, and each of its hosts must be one the sandbox may
     * reach (its own rules or the operator's always-allow list, and no deny rule): the gateway
     * never sends a value where the sandbox could not go.
     */
    private void checkBrokered(Workspace workspace, SandboxPolicy policy) {
        for (Map.Entry<String, BrokeredSecret> b : workspace.brokered().entrySet()) {
            checkHosts(
                    "workspace.secrets." + b.getKey(),
                    ".brokerHosts",
                    b.getValue().hosts(),
                    policy,
                    "policy.network");
        }
    }

    /**
     * {@code hosts} of the brokered secret {@code at}, each {@code at + list + [i]}: only with
     * network {@code egress}, each a host the policy lets the sandbox reach.
     */
    private void checkHosts(
            String at, String list, List<String> hosts, SandboxPolicy policy, String network) {
        if (policy.network() != Network.EGRESS) {
            throw invalid(at, "is brokered, which needs " + network + " \"egress\"");
        }
        for (int i = 0; i < hosts.size(); i++) {
            if (!reachable(policy, hosts.get(i))) {
                throw invalid(
                        at + list + "[" + i + "]",
                        "is not a host this sandbox's egress policy allows");
            }
        }
    }

    /** Whether an egress sandbox of {@code policy} may reach {@code host} (on 443 or 80). */
    private boolean reachable(SandboxPolicy policy, String host) {
        boolean denied =
                policy.egress().deny().stream()
                        .anyMatch(r -> r.matches(host, 443) || r.matches(host, 80));
        boolean allowed =
                policy.egress().allow().stream()
                                .anyMatch(r -> r.matches(host, 443) || r.matches(host, 80))
                        || rules.egress().alwaysAllow().stream()
                                .anyMatch(r -> r.matches(host, 443) || r.matches(host, 80));
        return allowed && !denied;
    }

    /**
     * {@code spec} with a run's {@link SecretBrokering} applied to its secrets (the rules and their
     * precedence are that record's). Each host of {@code brokeredSecrets} is checked against the
     * policy whether or not the secret is given now, so that a definition is refused when it is
     * stored: {@code 400} naming {@code brokeredSecrets.NAME} (not an {@code egress} sandbox) or
     * {@code brokeredSecrets.NAME[i]} (a host the policy does not allow).
     */
    public SandboxSpec withBrokering(SandboxSpec spec, SecretBrokering brokering) {
        SandboxPolicy policy = spec.policy();
        brokering
                .brokered()
                .forEach(
                        (name, hosts) ->
                                checkHosts(
                                        "brokeredSecrets." + name,
                                        "",
                                        hosts,
                                        policy,
                                        "sandbox.policy.network"));
        Workspace w = spec.workspace();
        Map<String, String> plain = new LinkedHashMap<>(w.secrets());
        Map<String, BrokeredSecret> brokered = new LinkedHashMap<>(w.brokered());
        boolean byDefault = rules.egress().brokerModelKeys() && policy.network() == Network.EGRESS;
        for (Map.Entry<String, String> secret : w.secrets().entrySet()) {
            String name = secret.getKey();
            List<String> hosts = brokering.brokered().get(name);
            if (hosts == null && byDefault && !brokering.plain().contains(name)) {
                hosts =
                        SecretBrokering.modelHost(name, w.env(), w.secrets())
                                .filter(h -> reachable(policy, h))
                                .map(List::of)
                                .orElse(null);
            }
            if (hosts != null) {
                plain.remove(name);
                brokered.put(name, new BrokeredSecret(secret.getValue(), hosts));
            }
        }
        if (brokered.size() == w.brokered().size()) {
            return spec;
        }
        return new SandboxSpec(
                spec.definitionId(),
                spec.provider(),
                spec.image(),
                spec.threadId(),
                new Workspace(w.source(), w.setup(), w.env(), Map.copyOf(plain), brokered),
                policy,
                spec.lifecycle());
    }

    /** {@code lifecycle}: reuse by thread when the body names one, else by definition. */
    private Lifecycle lifecycle(JsonObject value, boolean hasThread) {
        Reuse defaultReuse = hasThread ? Reuse.THREAD : Reuse.DEFINITION;
        if (value == null) {
            return new Lifecycle(defaultReuse, SnapshotMode.NONE, defaultKeepAliveMs);
        }
        JsonMembers<LifecycleBody> m = JsonMembers.of(value, "lifecycle", LifecycleBody.class);
        String reuse = m.through("reuse");
        Reuse r =
                reuse == null
                        ? defaultReuse
                        : enumValue(
                                Reuse.class,
                                reuse,
                                "lifecycle.reuse",
                                "thread, definition or none");
        String snapshot = m.through("snapshot");
        SnapshotMode s =
                snapshot == null
                        ? SnapshotMode.NONE
                        : enumValue(
                                SnapshotMode.class,
                                snapshot,
                                "lifecycle.snapshot",
                                "none or after-setup");
        Long keepAlive = m.finish().keepAliveMs();
        if (keepAlive != null && keepAlive > rules.ceilings().maxKeepAliveMs()) {
            throw aboveCeiling("lifecycle.keepAliveMs", rules.ceilings().maxKeepAliveMs());
        }
        return new Lifecycle(r, s, keepAlive == null ? defaultKeepAliveMs : keepAlive);
    }

    /** A wire name in any case, {@code -} for {@code _}. */
    private static <E extends Enum<E>> E enumValue(
            Class<E> type, String wire, String field, String allowed) {
        try {
            return Enum.valueOf(type, wire.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw invalid(field, "must be one of " + allowed);
        }
    }

    /** {@code 400 invalid-request} naming {@code field} and its ceiling. */
    static ProblemException aboveCeiling(String field, Number ceiling) {
        String shown =
                ceiling instanceof Double d && d == Math.rint(d)
                        ? String.valueOf(d.longValue())
                        : String.valueOf(ceiling);
        return new ProblemException(
                ProblemCode.INVALID_REQUEST,
                field + " is above this server's ceiling of " + shown,
                Map.of("field", field, "ceiling", ceiling),
                null);
    }

    /**
     * {@code 400 invalid-request} whose detail starts with {@code field} and whose {@code field}
     * member names it (also used by {@link EgressEntries}, so that both read the same).
     */
    static ProblemException invalid(String field, String problem) {
        return ProblemException.invalidField(field, problem);
    }
}
