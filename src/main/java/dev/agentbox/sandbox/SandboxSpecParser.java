package dev.agentbox.sandbox;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxSpec.GitSource;
import dev.agentbox.sandbox.SandboxSpec.Lifecycle;
import dev.agentbox.sandbox.SandboxSpec.LocalSource;
import dev.agentbox.sandbox.SandboxSpec.NoSource;
import dev.agentbox.sandbox.SandboxSpec.Reuse;
import dev.agentbox.sandbox.SandboxSpec.SetupStep;
import dev.agentbox.sandbox.SandboxSpec.SnapshotMode;
import dev.agentbox.sandbox.SandboxSpec.Source;
import dev.agentbox.sandbox.SandboxSpec.Workspace;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.GitCredentials;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxPolicy.Network;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns an ensure body into a {@link SandboxSpec}, or a {@code 400 invalid-request} whose detail
 * names the offending field (e.g. {@code workspace.setup[1][0]}). Unknown members are rejected too:
 * a misspelt {@code polcy} must not silently mean "default policy".
 *
 * <p>Every check the server can make without the engine happens here, before the key is computed or
 * anything is created: {@code image} on the allowlist ({@code 400 image-not-allowed}), limits under
 * the {@link ResourceCeilings} (the detail and a {@code ceiling} member name the ceiling), ids
 * printable and short (they end up in log lines and database columns), no control characters in
 * URLs and refs, no NUL in commands, numbers in range (a JSON {@code 4294967302} must not wrap to
 * {@code 6}), egress entries read by {@link EgressEntries} within the {@link EgressLimits}.
 */
public final class SandboxSpecParser {

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int MAX_SETUP_STEPS = 200;

    /**
     * Ids are stored in 255-char columns and printed in log lines; 200 leaves room for prefixes.
     */
    static final int MAX_ID_LENGTH = 200;

    private static final int MAX_TEXT_LENGTH = 8192;

    private final long defaultKeepAliveMs;
    private final LocalSources localSources;
    private final EnsureRules rules;

    /** A parser with the default allowlist and ceilings (tests and tools). */
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
        this.localSources = localSources;
        this.rules = rules;
    }

    public SandboxSpec parse(JsonValue body) {
        JsonObject o = object(body, "body");
        only(
                o,
                "body",
                "definitionId",
                "provider",
                "image",
                "threadId",
                "workspace",
                "policy",
                "lifecycle");
        String definitionId =
                optionalString(o, "definitionId").map(v -> id(v, "definitionId")).orElse("default");
        String provider =
                optionalString(o, "provider").map(v -> id(v, "provider")).orElse("docker");
        Optional<String> image = optionalString(o, "image").map(this::image);
        Optional<String> threadId = optionalString(o, "threadId").map(v -> id(v, "threadId"));
        Workspace workspace = workspace(o.get("workspace"));
        SandboxPolicy policy = policy(o.get("policy"));
        checkBrokered(workspace, policy);
        Lifecycle lifecycle = lifecycle(o.get("lifecycle"), threadId.isPresent());
        if (lifecycle.reuse() == Reuse.THREAD && threadId.isEmpty()) {
            throw invalid("threadId", "is required when lifecycle.reuse is \"thread\"");
        }
        return new SandboxSpec(
                definitionId, provider, image, threadId, workspace, policy, lifecycle);
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
     * Printable, at most {@value #MAX_ID_LENGTH} chars: an id is a key input, a column value and a
     * log word.
     */
    private static String id(String value, String field) {
        if (value.length() > MAX_ID_LENGTH) {
            throw invalid(field, "is longer than " + MAX_ID_LENGTH + " characters");
        }
        if (!value.codePoints().allMatch(SandboxSpecParser::printable)) {
            throw invalid(field, "must hold printable characters only (no control characters)");
        }
        return value;
    }

    private String image(String value) {
        if (!value.codePoints().allMatch(SandboxSpecParser::printable) || value.length() > 255) {
            throw invalid("image", "must be a printable repo:tag name of at most 255 characters");
        }
        rules.images().check(value);
        return value;
    }

    /**
     * The same rule as a run's ids ({@code RunRequest.requireId}): no control characters, no line
     * or paragraph separators (both forge log lines), no unpaired surrogates (they cannot be stored
     * as UTF-8; {@code codePoints()} yields a lone surrogate as itself).
     */
    private static boolean printable(int cp) {
        return !Character.isISOControl(cp)
                && cp != '\u2028'
                && cp != '\u2029'
                && Character.getType(cp) != Character.SURROGATE;
    }

    /**
     * No control characters (CR/LF, NUL, ESC …): the value reaches a command line and log lines.
     */
    private static String noControl(String value, String field) {
        if (value.length() > MAX_TEXT_LENGTH) {
            throw invalid(field, "is longer than " + MAX_TEXT_LENGTH + " characters");
        }
        if (!value.codePoints().allMatch(SandboxSpecParser::printable)) {
            throw invalid(field, "must not contain control characters");
        }
        return value;
    }

    private Workspace workspace(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return new Workspace(new NoSource(), List.of(), Map.of(), Map.of());
        }
        JsonObject w = object(value, "workspace");
        only(w, "workspace", "source", "setup", "env", "secrets");
        Map<String, String> plain = new LinkedHashMap<>();
        Map<String, BrokeredSecret> brokered = new LinkedHashMap<>();
        secrets(w.get("secrets"), plain, brokered);
        return new Workspace(
                source(w.get("source")),
                setup(w.get("setup")),
                stringMap(w.get("env"), "workspace.env"),
                Map.copyOf(plain),
                brokered);
    }

    /** The most hosts one brokered secret may name. */
    static final int MAX_BROKER_HOSTS = 16;

    /**
     * {@code workspace.secrets}: a string is a secret the sandbox holds; {@code {"value",
     * "brokerHosts"}} one it never holds (a placeholder in the sandbox, the value at the egress
     * gateway, for those exact hosts). Whether the hosts are allowed is checked with the policy.
     */
    private static void secrets(
            JsonValue value, Map<String, String> plain, Map<String, BrokeredSecret> brokered) {
        if (value == null || value == JsonValue.NULL) {
            return;
        }
        String field = "workspace.secrets";
        for (Map.Entry<String, JsonValue> e : object(value, field).entrySet()) {
            if (!ENV_NAME.matcher(e.getKey()).matches()) {
                throw invalid(field, "has an invalid variable name \"" + e.getKey() + "\"");
            }
            String at = field + "." + e.getKey();
            if (e.getValue() instanceof JsonObject o) {
                only(o, at, "value", "brokerHosts");
                String v =
                        optionalString(o, "value", at + ".value")
                                .orElseThrow(() -> invalid(at + ".value", "is required"));
                if (v.isEmpty()
                        || v.indexOf('\0') >= 0
                        || v.indexOf('\n') >= 0
                        || v.indexOf('\r') >= 0) {
                    throw invalid(
                            at + ".value", "must be a non-empty header value (no NUL, CR or LF)");
                }
                JsonArray hosts = optionalArray(o, "brokerHosts", at + ".brokerHosts");
                if (hosts == null || hosts.isEmpty()) {
                    throw invalid(at + ".brokerHosts", "must name at least one host");
                }
                if (hosts.size() > MAX_BROKER_HOSTS) {
                    throw invalid(
                            at + ".brokerHosts", "names more than " + MAX_BROKER_HOSTS + " hosts");
                }
                List<String> names = new ArrayList<>();
                for (int i = 0; i < hosts.size(); i++) {
                    String hf = at + ".brokerHosts[" + i + "]";
                    if (!(hosts.get(i) instanceof JsonString js)) {
                        throw invalid(hf, "must be a host name");
                    }
                    EgressRule r = EgressEntries.parse(js.getString(), hf, false);
                    if (r.kind() != EgressRule.Kind.HOST || r.port().isPresent()) {
                        throw invalid(hf, "must be one exact host name, without a port or *.");
                    }
                    if (names.contains(r.value())) {
                        throw invalid(hf, "repeats " + r.value());
                    }
                    names.add(r.value());
                }
                brokered.put(e.getKey(), new BrokeredSecret(v, names));
            } else if (e.getValue() instanceof JsonString s) {
                if (s.getString().indexOf('\0') >= 0) {
                    throw invalid(at, "must not contain NUL");
                }
                plain.put(e.getKey(), s.getString());
            } else {
                throw invalid(at, "must be a string or {\"value\",\"brokerHosts\"}");
            }
        }
    }

    /**
     * A brokered secret needs the egress gateway, and each of its hosts must be one the sandbox may
     * reach (its own rules or the operator's always-allow list, and no deny rule): the gateway
     * never sends a value where the sandbox could not go.
     */
    private void checkBrokered(Workspace workspace, SandboxPolicy policy) {
        for (Map.Entry<String, BrokeredSecret> b : workspace.brokered().entrySet()) {
            String at = "workspace.secrets." + b.getKey();
            if (policy.network() != Network.EGRESS) {
                throw invalid(at, "is brokered, which needs policy.network \"egress\"");
            }
            List<String> hosts = b.getValue().hosts();
            for (int i = 0; i < hosts.size(); i++) {
                String h = hosts.get(i);
                boolean denied =
                        policy.egress().deny().stream()
                                .anyMatch(r -> r.matches(h, 443) || r.matches(h, 80));
                boolean allowed =
                        policy.egress().allow().stream()
                                        .anyMatch(r -> r.matches(h, 443) || r.matches(h, 80))
                                || rules.egress().alwaysAllow().stream()
                                        .anyMatch(r -> r.matches(h, 443) || r.matches(h, 80));
                if (denied || !allowed) {
                    throw invalid(
                            at + ".brokerHosts[" + i + "]",
                            "is not a host this sandbox's egress policy allows");
                }
            }
        }
    }

    private Source source(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return new NoSource();
        }
        JsonObject s = object(value, "workspace.source");
        String type =
                optionalString(s, "type", "workspace.source.type")
                        .orElseThrow(
                                () ->
                                        invalid(
                                                "workspace.source.type",
                                                "is required (git, none or local)"));
        switch (type) {
            case "none" -> {
                only(s, "workspace.source", "type");
                return new NoSource();
            }
            case "git" -> {
                only(s, "workspace.source", "type", "url", "ref", "depth");
                String url =
                        optionalString(s, "url", "workspace.source.url")
                                .map(u -> noControl(u, "workspace.source.url"))
                                .orElseThrow(
                                        () ->
                                                invalid(
                                                        "workspace.source.url",
                                                        "is required for a git source"));
                if (url.startsWith("-")) {
                    throw invalid("workspace.source.url", "must not start with '-'");
                }
                Optional<String> credentials = GitCredentials.problemWith(url);
                if (credentials.isPresent()) {
                    throw invalid("workspace.source.url", credentials.get());
                }
                Optional<String> ref =
                        optionalString(s, "ref", "workspace.source.ref")
                                .map(r -> noControl(r, "workspace.source.ref"));
                if (ref.isPresent() && (ref.get().startsWith("-") || ref.get().isBlank())) {
                    throw invalid("workspace.source.ref", "must be a branch, tag or commit name");
                }
                Optional<Long> rawDepth = optionalInteger(s, "depth", "workspace.source.depth");
                if (rawDepth.isPresent()
                        && (rawDepth.get() < 0 || rawDepth.get() > Integer.MAX_VALUE)) {
                    throw invalid(
                            "workspace.source.depth",
                            "must be 0 (full history) or a positive count of commits");
                }
                int depth = rawDepth.orElse(0L).intValue();
                return new GitSource(url, ref, depth);
            }
            case "local" -> {
                only(s, "workspace.source", "type", "path");
                if (!localSources.enabled()) {
                    throw invalid(
                            "workspace.source.type",
                            "\"local\" is disabled on this server (agentbox.sources.local.enabled)");
                }
                String path =
                        optionalString(s, "path", "workspace.source.path")
                                .map(p -> noControl(p, "workspace.source.path"))
                                .orElseThrow(
                                        () ->
                                                invalid(
                                                        "workspace.source.path",
                                                        "is required for a local source"));
                // Lexical rules only; the directory itself is checked when a sandbox is made.
                localSources.checkAccepted(path);
                return new LocalSource(path);
            }
            default ->
                    throw invalid(
                            "workspace.source.type",
                            "must be git, none or local, not \"" + type + "\"");
        }
    }

    private static List<SetupStep> setup(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return List.of();
        }
        JsonArray steps = array(value, "workspace.setup");
        if (steps.size() > MAX_SETUP_STEPS) {
            throw invalid("workspace.setup", "has more than " + MAX_SETUP_STEPS + " steps");
        }
        List<SetupStep> result = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            String field = "workspace.setup[" + i + "]";
            JsonValue step = steps.get(i);
            if (step instanceof JsonString js) {
                result.add(SetupStep.single(command(js.getString(), field)));
            } else if (step instanceof JsonArray group) {
                if (group.isEmpty()) {
                    throw invalid(field, "is an empty parallel group");
                }
                List<String> commands = new ArrayList<>();
                for (int j = 0; j < group.size(); j++) {
                    if (!(group.get(j) instanceof JsonString js)) {
                        throw invalid(field + "[" + j + "]", "must be a command string");
                    }
                    commands.add(command(js.getString(), field + "[" + j + "]"));
                }
                result.add(SetupStep.group(commands));
            } else {
                throw invalid(field, "must be a command string or an array of command strings");
            }
        }
        return List.copyOf(result);
    }

    private static String command(String command, String field) {
        if (command.isBlank()) {
            throw invalid(field, "is an empty command");
        }
        if (command.indexOf('\0') >= 0) {
            // A NUL cuts an argv string short: the shell would run less than was asked for.
            throw invalid(field, "must not contain NUL");
        }
        return command;
    }

    private SandboxPolicy policy(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return SandboxPolicy.defaults();
        }
        JsonObject p = object(value, "policy");
        only(p, "policy", "network", "memoryMb", "cpus", "pids", "ports", "egress");
        ResourceCeilings max = rules.ceilings();
        Network network =
                switch (optionalString(p, "network", "policy.network").orElse("none")) {
                    case "none" -> Network.NONE;
                    case "bridge" -> {
                        if (!rules.bridgeEnabled()) {
                            throw invalid(
                                    "policy.network",
                                    "\"bridge\" is disabled on this server (agentbox.docker.bridge-enabled)");
                        }
                        yield Network.BRIDGE;
                    }
                    case "egress" -> Network.EGRESS;
                    default ->
                            throw invalid(
                                    "policy.network", "must be \"none\", \"bridge\" or \"egress\"");
                };
        EgressPolicy egress = egress(p.get("egress"), network);
        OptionalInt memoryMb = bounded(p, "memoryMb", "policy.memoryMb", 6, max.maxMemoryMb());
        OptionalInt pids = bounded(p, "pids", "policy.pids", 1, max.maxPids());
        OptionalDouble cpus = OptionalDouble.empty();
        if (p.containsKey("cpus") && p.get("cpus") != JsonValue.NULL) {
            if (!(p.get("cpus") instanceof JsonNumber n)
                    || !(n.doubleValue() >= 0.01)
                    || Double.isInfinite(n.doubleValue())) {
                throw invalid("policy.cpus", "must be a number of at least 0.01");
            }
            if (n.doubleValue() > max.maxCpus()) {
                throw aboveCeiling("policy.cpus", max.maxCpus());
            }
            cpus = OptionalDouble.of(n.doubleValue());
        }
        List<Integer> ports = new ArrayList<>();
        if (p.containsKey("ports") && p.get("ports") != JsonValue.NULL) {
            JsonArray a = array(p.get("ports"), "policy.ports");
            if (a.size() > max.maxPorts()) {
                throw aboveCeiling("policy.ports", max.maxPorts());
            }
            for (int i = 0; i < a.size(); i++) {
                if (!(a.get(i) instanceof JsonNumber n)
                        || !n.isIntegral()
                        || n.bigDecimalValue().compareTo(java.math.BigDecimal.ONE) < 0
                        || n.bigDecimalValue().compareTo(java.math.BigDecimal.valueOf(65535)) > 0) {
                    throw invalid("policy.ports[" + i + "]", "must be a port number 1-65535");
                }
                if (ports.contains(n.intValue())) {
                    throw invalid("policy.ports[" + i + "]", "repeats port " + n.intValue());
                }
                ports.add(n.intValue());
            }
        }
        if (network == Network.EGRESS && !ports.isEmpty()) {
            // Published ports belong to the bridge network; an egress sandbox publishes
            // nothing (with network none the Docker provider refuses ports when it creates).
            throw invalid("policy.ports", "needs policy.network \"bridge\"");
        }
        return new SandboxPolicy(network, memoryMb, cpus, pids, List.copyOf(ports), egress);
    }

    /**
     * {@code policy.egress}: only with network {@code egress}, where it may be absent (the sandbox
     * then reaches the operator's always-allow hosts only). {@code allow} and {@code deny} together
     * hold at most {@link EgressLimits#maxRules()} entries, counted before any is read; each entry
     * appears once across both lists, compared after normalisation, so that two spellings of one
     * policy give one sandbox key and no rule is dead weight.
     */
    private EgressPolicy egress(JsonValue value, Network network) {
        boolean present = value != null && value != JsonValue.NULL;
        if (network != Network.EGRESS) {
            if (present) {
                throw invalid("policy.egress", "is only allowed with policy.network \"egress\"");
            }
            return EgressPolicy.empty();
        }
        if (!present) {
            return EgressPolicy.empty();
        }
        JsonObject e = object(value, "policy.egress");
        only(e, "policy.egress", "allow", "deny");
        JsonArray allow = optionalArray(e, "allow", "policy.egress.allow");
        JsonArray deny = optionalArray(e, "deny", "policy.egress.deny");
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

    /** An optional integer in {@code [min, ceiling]}; above the ceiling names it. */
    private static OptionalInt bounded(
            JsonObject o, String name, String field, int min, int ceiling) {
        Optional<Long> v = optionalInteger(o, name, field);
        if (v.isEmpty()) {
            return OptionalInt.empty();
        }
        if (v.get() < min) {
            throw invalid(field, "must be at least " + min);
        }
        if (v.get() > ceiling) {
            throw aboveCeiling(field, ceiling);
        }
        return OptionalInt.of(v.get().intValue());
    }

    private Lifecycle lifecycle(JsonValue value, boolean hasThread) {
        Reuse defaultReuse = hasThread ? Reuse.THREAD : Reuse.DEFINITION;
        if (value == null || value == JsonValue.NULL) {
            return new Lifecycle(defaultReuse, SnapshotMode.NONE, defaultKeepAliveMs);
        }
        JsonObject l = object(value, "lifecycle");
        only(l, "lifecycle", "reuse", "snapshot", "keepAliveMs");
        Reuse reuse =
                optionalString(l, "reuse", "lifecycle.reuse")
                        .map(
                                r ->
                                        enumValue(
                                                Reuse.class,
                                                r,
                                                "lifecycle.reuse",
                                                "thread, definition or none"))
                        .orElse(defaultReuse);
        SnapshotMode snapshot =
                optionalString(l, "snapshot", "lifecycle.snapshot")
                        .map(
                                s ->
                                        enumValue(
                                                SnapshotMode.class,
                                                s,
                                                "lifecycle.snapshot",
                                                "none or after-setup"))
                        .orElse(SnapshotMode.NONE);
        long keepAlive = defaultKeepAliveMs;
        Optional<Long> requested = optionalInteger(l, "keepAliveMs", "lifecycle.keepAliveMs");
        if (requested.isPresent()) {
            if (requested.get() < 1000) {
                throw invalid("lifecycle.keepAliveMs", "must be an integer of at least 1000");
            }
            if (requested.get() > rules.ceilings().maxKeepAliveMs()) {
                throw aboveCeiling("lifecycle.keepAliveMs", rules.ceilings().maxKeepAliveMs());
            }
            keepAlive = requested.get();
        }
        return new Lifecycle(reuse, snapshot, keepAlive);
    }

    private static <E extends Enum<E>> E enumValue(
            Class<E> type, String wire, String field, String allowed) {
        try {
            return Enum.valueOf(type, wire.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw invalid(field, "must be one of " + allowed);
        }
    }

    private static Map<String, String> stringMap(JsonValue value, String field) {
        if (value == null || value == JsonValue.NULL) {
            return Map.of();
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : object(value, field).entrySet()) {
            if (!ENV_NAME.matcher(e.getKey()).matches()) {
                throw invalid(field, "has an invalid variable name \"" + e.getKey() + "\"");
            }
            if (!(e.getValue() instanceof JsonString s)) {
                throw invalid(field + "." + e.getKey(), "must be a string");
            }
            if (s.getString().indexOf('\0') >= 0) {
                throw invalid(field + "." + e.getKey(), "must not contain NUL");
            }
            result.put(e.getKey(), s.getString());
        }
        return Map.copyOf(result);
    }

    /**
     * An optional JSON integer as a long; beyond the long range it is refused rather than wrapped
     * ({@code JsonNumber.intValue()} of {@code 4294967302} is {@code 6}).
     */
    private static Optional<Long> optionalInteger(JsonObject o, String name, String field) {
        JsonValue v = o.get(name);
        if (v == null || v == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(v instanceof JsonNumber n) || !n.isIntegral()) {
            throw invalid(field, "must be an integer");
        }
        try {
            return Optional.of(n.bigDecimalValue().longValueExact());
        } catch (ArithmeticException e) {
            throw invalid(field, "is out of range");
        }
    }

    private static Optional<String> optionalString(JsonObject o, String name) {
        return optionalString(o, name, name);
    }

    private static Optional<String> optionalString(JsonObject o, String name, String field) {
        JsonValue v = o.get(name);
        if (v == null || v == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(v instanceof JsonString s)) {
            throw invalid(field, "must be a string");
        }
        if (s.getString().isBlank()) {
            throw invalid(field, "must not be empty");
        }
        return Optional.of(s.getString());
    }

    private static JsonObject object(JsonValue v, String field) {
        if (!(v instanceof JsonObject o)) {
            throw invalid(field, "must be a JSON object");
        }
        return o;
    }

    /** An optional JSON array; absent or null is empty. */
    private static JsonArray optionalArray(JsonObject o, String name, String field) {
        JsonValue v = o.get(name);
        return v == null || v == JsonValue.NULL ? JsonValue.EMPTY_JSON_ARRAY : array(v, field);
    }

    private static JsonArray array(JsonValue v, String field) {
        if (!(v instanceof JsonArray a)) {
            throw invalid(field, "must be a JSON array");
        }
        return a;
    }

    private static void only(JsonObject o, String field, String... allowed) {
        Set<String> known = Set.of(allowed);
        for (String key : o.keySet()) {
            if (!known.contains(key)) {
                throw invalid(
                        field.equals("body") ? key : field + "." + key, "is not a known field");
            }
        }
    }

    private static ProblemException aboveCeiling(String field, Number ceiling) {
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
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }
}
