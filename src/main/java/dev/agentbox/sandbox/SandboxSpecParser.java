package dev.agentbox.sandbox;

import dev.agentbox.api.ProblemException;
import dev.agentbox.sandbox.SandboxSpec.GitSource;
import dev.agentbox.sandbox.SandboxSpec.Lifecycle;
import dev.agentbox.sandbox.SandboxSpec.LocalSource;
import dev.agentbox.sandbox.SandboxSpec.Network;
import dev.agentbox.sandbox.SandboxSpec.NoSource;
import dev.agentbox.sandbox.SandboxSpec.Policy;
import dev.agentbox.sandbox.SandboxSpec.Reuse;
import dev.agentbox.sandbox.SandboxSpec.SetupStep;
import dev.agentbox.sandbox.SandboxSpec.SnapshotMode;
import dev.agentbox.sandbox.SandboxSpec.Source;
import dev.agentbox.sandbox.SandboxSpec.Workspace;
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
 * Turns an ensure body into a {@link SandboxSpec}, or a {@code 400 invalid-request} whose
 * detail names the offending field (e.g. {@code workspace.setup[1][0]}). Unknown members
 * are rejected too: a misspelt {@code polcy} must not silently mean "default policy".
 */
public final class SandboxSpecParser {

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int MAX_SETUP_STEPS = 200;

    private final long defaultKeepAliveMs;
    private final boolean localSourcesEnabled;

    public SandboxSpecParser(long defaultKeepAliveMs, boolean localSourcesEnabled) {
        this.defaultKeepAliveMs = defaultKeepAliveMs;
        this.localSourcesEnabled = localSourcesEnabled;
    }

    public SandboxSpec parse(JsonValue body) {
        JsonObject o = object(body, "body");
        only(o, "body", "definitionId", "provider", "image", "threadId", "workspace", "policy", "lifecycle");
        String definitionId = optionalString(o, "definitionId").orElse("default");
        String provider = optionalString(o, "provider").orElse("docker");
        Optional<String> image = optionalString(o, "image");
        Optional<String> threadId = optionalString(o, "threadId");
        Workspace workspace = workspace(o.get("workspace"));
        Policy policy = policy(o.get("policy"));
        Lifecycle lifecycle = lifecycle(o.get("lifecycle"), threadId.isPresent());
        if (lifecycle.reuse() == Reuse.THREAD && threadId.isEmpty()) {
            throw invalid("threadId", "is required when lifecycle.reuse is \"thread\"");
        }
        return new SandboxSpec(definitionId, provider, image, threadId, workspace, policy, lifecycle);
    }

    private Workspace workspace(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return new Workspace(new NoSource(), List.of(), Map.of(), Map.of());
        }
        JsonObject w = object(value, "workspace");
        only(w, "workspace", "source", "setup", "env", "secrets");
        return new Workspace(source(w.get("source")), setup(w.get("setup")),
                stringMap(w.get("env"), "workspace.env"), stringMap(w.get("secrets"), "workspace.secrets"));
    }

    private Source source(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return new NoSource();
        }
        JsonObject s = object(value, "workspace.source");
        String type = optionalString(s, "type", "workspace.source.type")
                .orElseThrow(() -> invalid("workspace.source.type", "is required (git, none or local)"));
        switch (type) {
            case "none" -> {
                only(s, "workspace.source", "type");
                return new NoSource();
            }
            case "git" -> {
                only(s, "workspace.source", "type", "url", "ref", "depth");
                String url = optionalString(s, "url", "workspace.source.url")
                        .orElseThrow(() -> invalid("workspace.source.url", "is required for a git source"));
                if (url.startsWith("-")) {
                    throw invalid("workspace.source.url", "must not start with '-'");
                }
                Optional<String> credentials = GitCredentials.problemWith(url);
                if (credentials.isPresent()) {
                    throw invalid("workspace.source.url", credentials.get());
                }
                Optional<String> ref = optionalString(s, "ref", "workspace.source.ref");
                if (ref.isPresent() && (ref.get().startsWith("-") || ref.get().isBlank())) {
                    throw invalid("workspace.source.ref", "must be a branch, tag or commit name");
                }
                int depth = optionalInt(s, "depth", "workspace.source.depth").orElse(0);
                if (depth < 0) {
                    throw invalid("workspace.source.depth", "must be 0 (full history) or positive");
                }
                return new GitSource(url, ref, depth);
            }
            case "local" -> {
                only(s, "workspace.source", "type", "path");
                if (!localSourcesEnabled) {
                    throw invalid("workspace.source.type", "\"local\" is disabled on this server (agentbox.sources.local.enabled)");
                }
                return new LocalSource(optionalString(s, "path", "workspace.source.path")
                        .orElseThrow(() -> invalid("workspace.source.path", "is required for a local source")));
            }
            default -> throw invalid("workspace.source.type", "must be git, none or local, not \"" + type + "\"");
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
        return command;
    }

    private static Policy policy(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return new Policy(Network.NONE, OptionalInt.empty(), OptionalDouble.empty(), OptionalInt.empty(), List.of());
        }
        JsonObject p = object(value, "policy");
        only(p, "policy", "network", "memoryMb", "cpus", "pids", "ports");
        Network network = switch (optionalString(p, "network", "policy.network").orElse("none")) {
            case "none" -> Network.NONE;
            case "bridge" -> Network.BRIDGE;
            default -> throw invalid("policy.network", "must be \"none\" or \"bridge\"");
        };
        OptionalInt memoryMb = positive(optionalInt(p, "memoryMb", "policy.memoryMb"), "policy.memoryMb", 6);
        OptionalInt pids = positive(optionalInt(p, "pids", "policy.pids"), "policy.pids", 1);
        OptionalDouble cpus = OptionalDouble.empty();
        if (p.containsKey("cpus") && p.get("cpus") != JsonValue.NULL) {
            if (!(p.get("cpus") instanceof JsonNumber n) || n.doubleValue() <= 0 || n.doubleValue() > 256) {
                throw invalid("policy.cpus", "must be a number above 0");
            }
            cpus = OptionalDouble.of(n.doubleValue());
        }
        List<Integer> ports = new ArrayList<>();
        if (p.containsKey("ports") && p.get("ports") != JsonValue.NULL) {
            JsonArray a = array(p.get("ports"), "policy.ports");
            for (int i = 0; i < a.size(); i++) {
                if (!(a.get(i) instanceof JsonNumber n) || !n.isIntegral() || n.intValue() < 1 || n.intValue() > 65535) {
                    throw invalid("policy.ports[" + i + "]", "must be a port number 1-65535");
                }
                ports.add(n.intValue());
            }
        }
        return new Policy(network, memoryMb, cpus, pids, List.copyOf(ports));
    }

    private Lifecycle lifecycle(JsonValue value, boolean hasThread) {
        Reuse defaultReuse = hasThread ? Reuse.THREAD : Reuse.DEFINITION;
        if (value == null || value == JsonValue.NULL) {
            return new Lifecycle(defaultReuse, SnapshotMode.NONE, defaultKeepAliveMs);
        }
        JsonObject l = object(value, "lifecycle");
        only(l, "lifecycle", "reuse", "snapshot", "keepAliveMs");
        Reuse reuse = optionalString(l, "reuse", "lifecycle.reuse")
                .map(r -> enumValue(Reuse.class, r, "lifecycle.reuse", "thread, definition or none"))
                .orElse(defaultReuse);
        SnapshotMode snapshot = optionalString(l, "snapshot", "lifecycle.snapshot")
                .map(s -> enumValue(SnapshotMode.class, s, "lifecycle.snapshot", "none or after-setup"))
                .orElse(SnapshotMode.NONE);
        long keepAlive = defaultKeepAliveMs;
        if (l.containsKey("keepAliveMs") && l.get("keepAliveMs") != JsonValue.NULL) {
            if (!(l.get("keepAliveMs") instanceof JsonNumber n) || !n.isIntegral() || n.longValue() < 1000) {
                throw invalid("lifecycle.keepAliveMs", "must be an integer of at least 1000");
            }
            keepAlive = n.longValue();
        }
        return new Lifecycle(reuse, snapshot, keepAlive);
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String wire, String field, String allowed) {
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

    private static OptionalInt positive(Optional<Integer> value, String field, int min) {
        if (value.isEmpty()) {
            return OptionalInt.empty();
        }
        if (value.get() < min) {
            throw invalid(field, "must be at least " + min);
        }
        return OptionalInt.of(value.get());
    }

    private static Optional<Integer> optionalInt(JsonObject o, String name, String field) {
        JsonValue v = o.get(name);
        if (v == null || v == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(v instanceof JsonNumber n) || !n.isIntegral()) {
            throw invalid(field, "must be an integer");
        }
        return Optional.of(n.intValue());
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
                throw invalid(field.equals("body") ? key : field + "." + key, "is not a known field");
            }
        }
    }

    private static ProblemException invalid(String field, String problem) {
        return new ProblemException(400, "invalid-request", field + " " + problem,
                Map.of("field", field), null);
    }
}
